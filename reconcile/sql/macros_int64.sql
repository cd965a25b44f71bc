-- Coordinate helpers for int64 coordinates.
-- rc_pred: the predecessor, used to state a discrete exclusive bound inclusively.
CREATE OR REPLACE TEMP MACRO rc_pred(v) AS v - 1;
-- rc_num: the coordinate as a number, for bucketing.
CREATE OR REPLACE TEMP MACRO rc_num(v) AS CAST(v AS BIGINT);
CREATE OR REPLACE TEMP MACRO rc_succ(v) AS v + 1;
