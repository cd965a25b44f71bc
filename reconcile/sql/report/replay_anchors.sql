-- Where to replay each blocked partition from (report.html's "why" panel): the resume
-- token of its latest won write (by written_at, generation, attempt_id) whose claim
-- stays below the blocking point, rc_before(blocking_position): a traversal restarted
-- there returns the blocking event. Writes without a token or a claim, or with a claim
-- in another ordering, are passed over; a partition with no such write has no row.
WITH candidates AS (
    SELECT
        m.scope_id,
        m.partition_id,
        w.resume_token,
        w.generation,
        w.attempt_id,
        w.written_at,
        w.watermark,
        row_number() OVER (
            PARTITION BY m.scope_id, m.partition_id
            ORDER BY w.written_at DESC, w.generation DESC, w.attempt_id DESC
        ) AS latest
    FROM rc_watermarks AS m
    JOIN rc_won AS w ON w.scope_id = m.scope_id AND w.partition_id = m.partition_id
    WHERE m.blocking_position IS NOT NULL
      AND w.resume_token IS NOT NULL
      AND w.claim IS NOT NULL
      AND w.comparable
      AND w.claim <= rc_before(m.blocking_position, w.discrete)
)
SELECT
    scope_id,
    partition_id,
    resume_token,
    generation AS anchor_generation,
    attempt_id AS anchor_attempt_id,
    written_at AS anchor_written_at,
    watermark AS anchor_watermark
FROM candidates
WHERE latest = 1
ORDER BY scope_id, partition_id
