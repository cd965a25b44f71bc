-- Every scope of the log set (judged on the whole log set, §3): its domain and
-- ordering, declared in `scopes` or defaulted (discrete for int64 coordinates,
-- dense for timestamps; the one ordering its checkpoints name, else 'default').
-- The scopes of the rows only partitions' phases read are rc_partition_scopes.
WITH found AS (
    SELECT DISTINCT scope_id FROM checkpoints
    UNION SELECT scope_id FROM rc_partition_scopes
    UNION SELECT DISTINCT scope_id FROM pages
    UNION SELECT DISTINCT scope_id FROM epochs
    UNION SELECT DISTINCT scope_id FROM members
    UNION SELECT DISTINCT scope_id FROM published
    UNION SELECT DISTINCT scope_id FROM scopes
),
named AS (
    SELECT scope_id, CASE WHEN count(DISTINCT ordering) = 1 THEN min(ordering) END AS ordering
    FROM checkpoints
    WHERE ordering IS NOT NULL
    GROUP BY scope_id
)
SELECT
    f.scope_id,
    coalesce(s.domain, $default_domain) AS domain,
    coalesce(s.domain, $default_domain) = 'discrete' AS discrete,
    coalesce(s.ordering, n.ordering, 'default') AS ordering
FROM found AS f
LEFT JOIN scopes AS s ON s.scope_id = f.scope_id
LEFT JOIN named AS n ON n.scope_id = f.scope_id
