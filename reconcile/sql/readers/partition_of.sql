-- rc_partition_of(keys, obj): the partition a JSON object (a context, a record, an
-- extract's row) is in, where its stream is partitioned (keys: rc_partition_keys),
-- as text: each key=value, in the keys' order, joined by ','; NULL where the stream
-- is not partitioned, or the object lacks a key. A '\', ',' or '=' in a key or a
-- value is escaped by a '\', and a null value is its key alone, so that two objects
-- that differ in a key's value never share a partition (a=1 with b=2,b=3 against a=1,b=2
-- with b=3; a null against an empty text).
CREATE OR REPLACE TEMP MACRO rc_partition_text(s) AS
    replace(replace(replace(s, '\', '\\'), ',', '\,'), '=', '\=');
CREATE OR REPLACE TEMP MACRO rc_key_path(k) AS
    '$."' || replace(replace(k, '\', '\\'), '"', '\"') || '"';
CREATE OR REPLACE TEMP MACRO rc_partition_of(keys, obj) AS
    CASE WHEN keys IS NULL
              OR list_bool_or(list_transform(keys, lambda k: json_extract(obj, rc_key_path(k)) IS NULL))
         THEN NULL
         ELSE array_to_string(
             list_transform(keys, lambda k: CASE
                 WHEN json_type(obj, rc_key_path(k)) = 'NULL' THEN rc_partition_text(k)
                 ELSE rc_partition_text(k) || '=' || rc_partition_text(json_extract_string(obj, rc_key_path(k)))
             END),
             ','
         ) END;
