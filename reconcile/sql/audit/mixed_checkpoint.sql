-- mixed_checkpoint (with pages): a won write's resume_token is not the next_token of
-- a page fetched by the same attempt at or before written_at, for the same partition
-- (a token handed to the attempt for another partition resumes the wrong stream). Not
-- for writes without compare-and-swap (__overwrite): nothing fences one attempt's
-- state from another's.
SELECT
    'mixed_checkpoint' AS rule, 'error' AS severity,
    w.scope_id, w.partition_id, NULL::BIGINT AS epoch, w.written_at AS at, NULL::VARCHAR AS event_id,
    w.attempt_id, w.generation, w.page_id,
    'resume token ' || w.resume_token || ' was not handed to attempt ' || w.attempt_id AS message,
    to_json({'resume_token': w.resume_token}) AS evidence
FROM rc_won AS w
WHERE w.resume_token IS NOT NULL AND NOT w.__overwrite
  AND NOT EXISTS (
      SELECT 1 FROM pages AS g
      WHERE g.scope_id = w.scope_id AND g.partition_id = w.partition_id
        AND g.attempt_id = w.attempt_id
        AND g.next_token = w.resume_token AND g.fetched_at <= w.written_at
  )
