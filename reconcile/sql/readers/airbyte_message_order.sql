-- rc_message_order (message_times.sql) of the Airbyte syncs: a RECORD or a TRACE
-- carries its emitted_at (milliseconds), a STATE none.
SELECT sync_no AS run_no, line, coalesce(type = 'STATE', false) AS is_state,
       CAST(round(emitted_ms * 1000) AS BIGINT) AS time_us
FROM rc_airbyte_lines
