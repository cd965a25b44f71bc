-- rc_singer_messages: every message of the runs (rc_singer_lines) with its time,
-- msg_at (message_times.sql). Read by the other singer_*.sql queries.
SELECT l.*, t.msg_at
FROM rc_singer_lines AS l
JOIN rc_message_times AS t USING (run_no, line)
ORDER BY run_no, line
