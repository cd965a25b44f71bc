-- Each epoch's rows of `members`; the default epoch of a scope without epochs has
-- every partition of the scope found in any table as a member (§3).
SELECT
    m.scope_id,
    m.epoch,
    m.partition_id,
    m.role,
    m.coverage_from,
    rc_cert(m.sealed_through, m.sealed_inclusive, s.discrete) AS seal,
    m.sealed_through IS NOT NULL AND m.sealed_inclusive IS NULL AS seal_unknown
FROM members AS m
JOIN rc_scopes AS s USING (scope_id)
UNION ALL
SELECT p.scope_id, 1, p.partition_id, 'member', NULL, NULL, false
FROM rc_partitions AS p
WHERE NOT EXISTS (SELECT 1 FROM epochs AS e WHERE e.scope_id = p.scope_id)
