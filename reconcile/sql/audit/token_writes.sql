-- Won writes whose watermark equals their resume token, or their page's next token,
-- read as a coordinate (§5 token_as_watermark); a page fetched after T is absent (§4).
SELECT w.scope_id, w.partition_id, w.attempt_id, w.generation, w.written_at, w.page_id,
       w.watermark, w.resume_token, g.next_token,
       CASE WHEN rc_token_value(w.resume_token) = w.watermark THEN w.resume_token
            ELSE g.next_token END AS token
FROM rc_won AS w
LEFT JOIN pages AS g
    ON g.scope_id = w.scope_id AND g.page_id = w.page_id AND g.fetched_at <= rc_as_of()
WHERE w.watermark IS NOT NULL
  AND (rc_token_value(w.resume_token) = w.watermark OR rc_token_value(g.next_token) = w.watermark)
