-- Each message's time (msg_at), one rule for every reader of message streams (Singer,
-- Airbyte), from rc_message_order: each message's run (run_no, in the runs' order), its
-- line, whether it is a STATE, and the time it carries in microseconds (time_us; null
-- where it carries none, as a STATE).
--
-- The order of the messages is the truth; the times they carry only label it. Each
-- message is dated at the time it carries, no earlier than the message before it, and
-- at least a microsecond after it where either of the two is a STATE. In microseconds:
-- msg_at = idx + the greatest (time - idx) over the messages up to this one, idx
-- counting those steps. So a record emitted after a STATE in the same instant (the
-- Airbyte CDK stamps records in milliseconds), with a time going back, or with no time
-- is after that STATE, never counted for its claim; a record whose time keeps the
-- order keeps its time. Before the first message that carries a time, the times count
-- from a second before the earliest time any message carries (before every timed
-- message, and no stall of years before it); from 2000-01-01 where none carries one.
WITH stepped AS (
    SELECT
        run_no, line, time_us,
        -- a step of a microsecond from the message before, where either is a STATE
        CAST(is_state OR coalesce(lag(is_state) OVER (ORDER BY run_no, line), false) AS BIGINT)
            AS step
    FROM rc_message_order
),
counted AS (
    SELECT run_no, line, time_us,
        CAST(sum(step) OVER (
            ORDER BY run_no, line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS BIGINT) AS idx
    FROM stepped
)
SELECT
    run_no, line,
    make_timestamp_ns(1000 * (idx + coalesce(
        max(time_us - idx) OVER (
            ORDER BY run_no, line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ),
        min(time_us) OVER () - 1000000,
        epoch_us(TIMESTAMPTZ '2000-01-01 00:00:00+00')
    ))) AS msg_at
FROM counted
