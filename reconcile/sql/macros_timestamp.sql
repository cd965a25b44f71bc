-- Coordinate helpers for timestamp coordinates (always a dense domain: rc_pred and
-- rc_succ are never applied; they are defined so that shared queries type-check, and
-- rc_pred(v) = v says that no predecessor is assumed).
CREATE OR REPLACE TEMP MACRO rc_pred(v) AS v;
CREATE OR REPLACE TEMP MACRO rc_num(v) AS epoch_ns(v);
CREATE OR REPLACE TEMP MACRO rc_succ(v) AS v;
-- rc_token_value: a page token read as a coordinate (§5 token_as_watermark): an
-- RFC 3339 date-time with Z or an offset a clock has (either case of T and Z), as a UTC instant
-- to the nanosecond. DuckDB's TIMESTAMPTZ holds microseconds: the fraction is cut
-- there for the cast and its seventh to ninth digits added back (digits past the
-- ninth dropped); an instant past the engine's times is no coordinate (NULL).
CREATE OR REPLACE TEMP MACRO rc_token_value(token) AS
    CASE
        WHEN regexp_full_match(
            token, '[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])'
        ) THEN TRY(make_timestamp_ns(
            epoch_ns(TRY_CAST(TRY_CAST(
                upper(regexp_replace(token, '(\.[0-9]{6})[0-9]+', '\1')) AS TIMESTAMPTZ) AS TIMESTAMP_NS))
            + CAST(rpad(regexp_extract(token, '\.[0-9]{6}([0-9]{1,3})', 1), 3, '0') AS BIGINT)
        ))
    END;
-- rc_cert_key / rc_key_cert: a certificate as one HUGEINT that sorts as the struct
-- does (v first, then i), and back: the segment trees take minima of these keys, a
-- native comparison, where a struct's minimum builds a sort key for every row. A key
-- read back from Arrow is a DECIMAL(38, 0): rc_key_cert casts it to HUGEINT first.
CREATE OR REPLACE TEMP MACRO rc_cert_key(c) AS CAST(epoch_ns(c.v) AS HUGEINT) * 2 + c.i;
CREATE OR REPLACE TEMP MACRO rc_key_cert_exact(k) AS
    CASE WHEN k IS NOT NULL THEN {
        'v': make_timestamp_ns(CAST((k - ((k % 2) + 2) % 2) // 2 AS BIGINT)),
        'i': CAST(((k % 2) + 2) % 2 AS INTEGER)
    } END;
CREATE OR REPLACE TEMP MACRO rc_key_cert(k) AS rc_key_cert_exact(CAST(k AS HUGEINT));
