-- rc_partition_of(keys, obj): the partition a JSON object (a context, a record, an
-- extract's row) is in, where its stream is partitioned (keys: rc_partition_keys),
-- as text: each key=value, in the keys' order, joined by ','; NULL where the stream
-- is not partitioned, or the object lacks a key.
CREATE OR REPLACE TEMP MACRO rc_partition_of(keys, obj) AS
    CASE WHEN keys IS NULL
              OR list_bool_or(list_transform(keys, lambda k: json_extract(obj, '$."' || replace(replace(k, '\', '\\'), '"', '\"') || '"') IS NULL))
         THEN NULL
         ELSE array_to_string(
             list_transform(keys, lambda k: k || '=' || json_extract_string(obj, '$."' || replace(replace(k, '\', '\\'), '"', '\"') || '"')),
             ','
         ) END;
