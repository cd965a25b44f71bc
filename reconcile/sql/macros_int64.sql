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
