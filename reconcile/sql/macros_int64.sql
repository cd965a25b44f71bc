-- Coordinate helpers for int64 coordinates.
-- rc_pred: the predecessor, used to state a discrete exclusive bound inclusively;
-- INT64_MIN has none and gives itself (rc_pred(v) < v says whether one exists).
-- Written so that it never overflows, whatever order DuckDB evaluates it in.
CREATE OR REPLACE TEMP MACRO rc_pred(v) AS greatest(v, -9223372036854775807) - 1;
-- rc_num: the coordinate as a number, for bucketing.
CREATE OR REPLACE TEMP MACRO rc_num(v) AS CAST(v AS BIGINT);
-- rc_succ: the successor, as a HUGEINT so that INT64_MAX has one (a bound to compare
-- against, never a coordinate).
CREATE OR REPLACE TEMP MACRO rc_succ(v) AS CAST(v AS HUGEINT) + 1;
-- rc_token_value: a page token read as a coordinate (§5 token_as_watermark):
-- an optional '-' and decimal digits, nothing else.
CREATE OR REPLACE TEMP MACRO rc_token_value(token) AS
    CASE WHEN regexp_full_match(token, '-?[0-9]+') THEN TRY_CAST(token AS BIGINT) END;
-- rc_cert_key / rc_key_cert: a certificate as one HUGEINT that sorts as the struct
-- does (v first, then i), and back: the segment trees take minima of these keys, a
-- native comparison, where a struct's minimum builds a sort key for every row. A key
-- read back from Arrow is a DECIMAL(38, 0): rc_key_cert casts it to HUGEINT first.
CREATE OR REPLACE TEMP MACRO rc_cert_key(c) AS CAST(c.v AS HUGEINT) * 2 + c.i;
CREATE OR REPLACE TEMP MACRO rc_key_cert_exact(k) AS
    CASE WHEN k IS NOT NULL THEN {
        'v': CAST((k - ((k % 2) + 2) % 2) // 2 AS BIGINT),
        'i': CAST(((k % 2) + 2) % 2 AS INTEGER)
    } END;
CREATE OR REPLACE TEMP MACRO rc_key_cert(k) AS rc_key_cert_exact(CAST(k AS HUGEINT));
