-- Coordinate helpers for int64 coordinates.
-- rc_pred: the predecessor, used to state a discrete exclusive bound inclusively.
CREATE OR REPLACE TEMP MACRO rc_pred(v) AS v - 1;
-- rc_num: the coordinate as a number, for bucketing.
CREATE OR REPLACE TEMP MACRO rc_num(v) AS CAST(v AS BIGINT);
CREATE OR REPLACE TEMP MACRO rc_succ(v) AS v + 1;
-- rc_token_value: a page token read as a coordinate (§5 token_as_watermark):
-- an optional '-' and decimal digits, nothing else.
CREATE OR REPLACE TEMP MACRO rc_token_value(token) AS
    CASE WHEN regexp_full_match(token, '-?[0-9]+') THEN TRY_CAST(token AS BIGINT) END;
