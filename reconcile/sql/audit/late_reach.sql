-- For rule late_insert: at each instant a won write came, the highest claim
-- (comparable) written up to then in its partition: one row per partition and
-- instant, numbered partition by partition in time order (idx), so that an event's
-- appearance finds the last one at or before it by a search (rc_reach_no), where an
-- ASOF join would sort every event.
WITH running AS (
    SELECT scope_id, partition_id, written_at, discrete,
           max(claim) FILTER (WHERE comparable) OVER (
               PARTITION BY scope_id, partition_id ORDER BY write_id
               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
           ) AS reach
    FROM rc_won
),
instants AS (
    SELECT rc_pk(scope_id, partition_id) AS pk, written_at AS t,
           any_value(discrete) AS discrete, max(reach) AS reach
    FROM running
    GROUP BY scope_id, partition_id, written_at
)
SELECT row_number() OVER (ORDER BY pk, t) - 1 AS idx, pk, t, discrete, reach
FROM instants
