-- Every won checkpoint write up to T, in each partition's order (written_at, then
-- generation, then attempt_id), with what the write rules compare it to: the
-- previous won write's generation, the highest owner epoch before it, and the
-- latest earlier claim (claims in another ordering are skipped; an unknown endpoint
-- is read as inclusive, its strongest reading), and the claim in force just before
-- it (§4.11: none after a write whose watermark is null, where previous_claim
-- skips that write; claims in another ordering skipped alike).
WITH won AS (
    SELECT
        c.* EXCLUDE (__bad_time),  -- validation's flag (reconcile.logset.normalize)
        s.discrete,
        c.ordering IS NULL OR c.ordering = s.ordering AS comparable,
        CASE WHEN c.watermark IS NOT NULL
             THEN rc_cert(c.watermark, c.watermark_inclusive, s.discrete) END AS claim,
        -- ties on (written_at, generation, attempt_id) ordered as watermarks/claims.sql
        rc_write_tie(c, s.discrete) AS tiebreak
    FROM checkpoints AS c
    JOIN rc_scopes AS s USING (scope_id)
    WHERE c.cas_result = 'won' AND c.written_at <= rc_as_of()
)
SELECT
    * EXCLUDE (tiebreak),
    row_number() OVER (ORDER BY scope_id, partition_id, written_at, generation, attempt_id, tiebreak) - 1
        AS write_id,
    lag(generation) OVER w AS previous_generation,
    max(owner_epoch) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS highest_epoch_before,
    last_value(CASE WHEN comparable THEN claim END IGNORE NULLS)
        OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS previous_claim,
    -- a null claim kept as a row ({'c': NULL}), a claim in another ordering skipped
    last_value(CASE WHEN comparable OR claim IS NULL THEN {'c': claim} END IGNORE NULLS)
        OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING).c AS claim_before
FROM won
WINDOW w AS (PARTITION BY scope_id, partition_id ORDER BY written_at, generation, attempt_id, tiebreak)
