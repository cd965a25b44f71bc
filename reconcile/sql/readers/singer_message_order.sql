-- rc_message_order (message_times.sql) of the Singer runs: a RECORD carries its
-- time_extracted, a STATE none.
SELECT run_no, line, coalesce(type = 'STATE', false) AS is_state, epoch_us(time_extracted) AS time_us
FROM rc_singer_lines
