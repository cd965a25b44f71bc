-- table: checkpoints
-- column: written_at
-- requires: checkpoints
-- message: writes without compare-and-swap of one partition at one written_at differ in their state, so which of them came last cannot be told; give them distinct written_at
-- Writes without compare-and-swap are ordered by written_at (docs/contract.md §3);
-- tied writes that agree on every column of their state may come in any order, the
-- others cannot be ordered. One row per tie; __rows counts its writes.
SELECT
    c.scope_id,
    c.partition_id,
    c.written_at,
    count(*) AS __rows,
    count(DISTINCT {'watermark': c.watermark, 'inclusive': c.watermark_inclusive,
                    'event_id': c.watermark_event_id, 'token': c.resume_token,
                    'page_id': c.page_id, 'ordering': c.ordering}) AS states,
    min(c.__file) AS __file,
    min(c.__row) AS __row
FROM checkpoints AS c
WHERE c.__overwrite
GROUP BY c.scope_id, c.partition_id, c.written_at
HAVING count(DISTINCT {'watermark': c.watermark, 'inclusive': c.watermark_inclusive,
                       'event_id': c.watermark_event_id, 'token': c.resume_token,
                       'page_id': c.page_id, 'ordering': c.ordering}) > 1
ORDER BY c.scope_id, c.partition_id, c.written_at
