-- Coordinate helpers for timestamp coordinates (always a dense domain: rc_pred and
-- rc_succ are never applied; they are defined so that shared queries type-check, and
-- rc_pred(v) = v says that no predecessor is assumed).
CREATE OR REPLACE TEMP MACRO rc_pred(v) AS v;
CREATE OR REPLACE TEMP MACRO rc_num(v) AS epoch_ns(v);
CREATE OR REPLACE TEMP MACRO rc_succ(v) AS v;
-- rc_token_value: a page token read as a coordinate (§5 token_as_watermark): an
-- RFC 3339 date-time with Z or an offset, as a UTC instant.
CREATE OR REPLACE TEMP MACRO rc_token_value(token) AS
    CASE
        WHEN regexp_full_match(
            token, '[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})'
        ) THEN TRY_CAST(TRY_CAST(token AS TIMESTAMPTZ) AS TIMESTAMP_NS)
    END;
