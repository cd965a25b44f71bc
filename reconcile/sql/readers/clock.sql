-- rc_no_clock(t): whether text t ends in a time with an offset from UTC that no clock
-- has: hours past 23, or minutes or seconds past 59 (RFC 3339 §5.6: an offset is
-- time-hour ":" time-minute). DuckDB reads +25:00 as 25 hours, an instant a day away
-- from any the writer meant: such text is no time, and the readers refuse it as they
-- refuse any other. The pattern is reconcile.logset.normalize.NO_CLOCK_OFFSET
-- (tests/test_time_zone.py holds the two equal).
CREATE OR REPLACE TEMP MACRO rc_no_clock(t) AS coalesce(regexp_matches(
    t,
    '[0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]*)?)?\s*[+-]((2[4-9]|[3-9][0-9])(:?[0-9]{2}(:?[0-9]{2})?)?|[0-9]{2}:?[6-9][0-9](:?[0-9]{2})?|[0-9]{2}:?[0-9]{2}:?[6-9][0-9])$'
), false);
