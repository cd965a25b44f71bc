-- Coordinate helpers for timestamp coordinates (always a dense domain: rc_pred is
-- never applied; it is defined so that shared queries type-check).
CREATE OR REPLACE TEMP MACRO rc_pred(v) AS v;
CREATE OR REPLACE TEMP MACRO rc_num(v) AS epoch_ns(v);
CREATE OR REPLACE TEMP MACRO rc_succ(v) AS v;
