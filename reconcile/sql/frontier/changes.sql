-- Every change of membership between consecutive epochs (§4.13), with the epoch
-- where its proof first stands (null: none). A partition joining at epoch a needs a
-- `member` row, in epoch a or later, whose coverage_from leaves no gap with a's
-- cutover C; one leaving at epoch d needs a `retiring` row, in d or later, sealed at
-- or above d's cutover. A cutover or seal with an unknown endpoint proves nothing.
-- No gap: dense, coverage_from <= C.through; discrete, coverage_from <= C.through + 1
-- with C inclusive (rc_succ compares in HUGEINT: INT64_MAX has a successor), and
-- coverage_from <= INT64_MIN for the one discrete cutover that stays exclusive,
-- (INT64_MIN, exclusive), which certifies nothing.
WITH ordered AS (
    SELECT
        scope_id,
        epoch,
        cutover,
        cutover_unknown,
        discrete,
        lag(epoch) OVER (PARTITION BY scope_id ORDER BY epoch) AS previous
    FROM rc_epochs
),
mem AS (
    SELECT scope_id, epoch, partition_id FROM rc_members WHERE role = 'member'
),
changed AS (
    SELECT o.scope_id, o.epoch, m.partition_id, 'join' AS change, o.cutover, o.cutover_unknown,
           o.discrete
    FROM ordered AS o
    JOIN mem AS m ON m.scope_id = o.scope_id AND m.epoch = o.epoch
    WHERE o.previous IS NOT NULL
      AND NOT EXISTS (
          SELECT 1 FROM mem AS q
          WHERE q.scope_id = o.scope_id AND q.epoch = o.previous AND q.partition_id = m.partition_id
      )
    UNION ALL
    SELECT o.scope_id, o.epoch, m.partition_id, 'leave', o.cutover, o.cutover_unknown, o.discrete
    FROM ordered AS o
    JOIN mem AS m ON m.scope_id = o.scope_id AND m.epoch = o.previous
    WHERE NOT EXISTS (
        SELECT 1 FROM mem AS q
        WHERE q.scope_id = o.scope_id AND q.epoch = o.epoch AND q.partition_id = m.partition_id
    )
)
SELECT
    c.scope_id,
    c.epoch,
    c.partition_id,
    c.change,
    c.cutover,
    c.cutover_unknown,
    (
        SELECT min(r.epoch)
        FROM rc_members AS r
        WHERE r.scope_id = c.scope_id AND r.partition_id = c.partition_id AND r.epoch >= c.epoch
          AND NOT c.cutover_unknown AND c.cutover IS NOT NULL
          AND CASE c.change
              WHEN 'join' THEN r.role = 'member' AND r.coverage_from IS NOT NULL AND (
                  CASE WHEN c.discrete AND c.cutover.i = 1 THEN r.coverage_from <= rc_succ(c.cutover.v)
                       ELSE r.coverage_from <= c.cutover.v END)
              ELSE r.role = 'retiring' AND NOT r.seal_unknown AND r.seal IS NOT NULL
                   AND r.seal >= c.cutover
          END
    ) AS proved_in
FROM changed AS c
