-- The blocking point per partition (§4.6-§4.7): the first, in order, of the
-- blocking event and the incomplete pages' blocks; with its reason. For the slice
-- of partitions in rc_slice.
WITH page_block AS (
    SELECT scope_id, partition_id, min(block) AS page_block
    FROM rc_page_status
    SEMI JOIN rc_slice USING (pk)
    WHERE incomplete
    GROUP BY scope_id, partition_id
)
SELECT
    p.pk,
    p.scope_id,
    p.partition_id,
    CASE
        WHEN e.event_block IS NULL THEN pb.page_block
        WHEN pb.page_block IS NULL THEN e.event_block
        ELSE least(e.event_block, pb.page_block)
    END AS block,
    CASE
        WHEN e.event_block IS NULL AND pb.page_block IS NULL THEN NULL
        WHEN pb.page_block IS NULL OR e.event_block < pb.page_block THEN e.event_reason
        ELSE 'incomplete_page'
    END AS reason,
    coalesce(e.eligible_events, 0) AS eligible_events,
    coalesce(e.durable_events, 0) AS durable_events,
    coalesce(e.replayed_events, 0) AS replayed_events
FROM rc_partitions AS p
SEMI JOIN rc_slice USING (pk)
LEFT JOIN rc_event_summary AS e USING (pk)
LEFT JOIN page_block AS pb USING (scope_id, partition_id)
