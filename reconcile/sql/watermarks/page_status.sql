-- Each non-empty page fetched by T of a partition with receipts evidence (§4.7):
-- how many distinct known events lie in [min_position, max_position], when the
-- event_count-th of them became known, and where it blocks when fewer are known.
-- Events are matched to pages by an equi-join on position buckets (as wide as a
-- typical page) rather than a band join; pages much wider than that are matched by
-- partition alone. The pages of the slice of partitions in rc_slice.
--
-- An incomplete page blocks right after its last event: rc_page_receipts gives its
-- position, and its event_id only where the slice holds a mutated event. Otherwise
-- every event's receipts lie at its sort position, so the event is the one known
-- event with a receipt at that position, where there is one; where several share it
-- (shared positions), the page's own receipts there name it, read again for those
-- pages alone. A complete page's block is not named (its event is NULL): only an
-- incomplete page blocks.
WITH page AS MATERIALIZED (
    SELECT p.pk, row_number() OVER () AS page_no, g.*
    FROM pages AS g
    JOIN rc_partitions AS p
        ON p.scope_id = g.scope_id AND p.partition_id = g.partition_id AND p.evidence = 'receipts'
    SEMI JOIN rc_slice AS s ON s.pk = p.pk
    WHERE g.fetched_at <= rc_as_of() AND g.event_count > 0
),
geometry AS (
    SELECT
        pk,
        min(rc_num(min_position)) AS base,
        -- the span in HUGEINT, the width capped (4e18 + 1): no int64 span overflows
        greatest(1, CAST(least(median(CAST(rc_num(max_position) AS HUGEINT) - rc_num(min_position)), 4e18)
                         AS BIGINT) + 1) AS width
    FROM page
    GROUP BY pk
),
spans AS (
    SELECT
        page.*,
        rc_bucket(min_position, geometry.base, geometry.width) AS b_lo,
        rc_bucket(max_position, geometry.base, geometry.width) AS b_hi
    FROM page
    JOIN geometry USING (pk)
),
buckets AS (
    SELECT pk, page_no, min_position, max_position, event_count,
           CAST(unnest(range(CAST(b_lo AS BIGINT), CAST(b_hi AS BIGINT) + 1)) AS DOUBLE) AS bucket
    FROM spans
    WHERE b_hi - b_lo < 64 AND b_hi < 4e18
),
wide AS (
    SELECT pk, page_no, min_position, max_position, event_count
    FROM spans
    WHERE NOT (b_hi - b_lo < 64 AND b_hi < 4e18)
),
events AS (
    SELECT
        e.pk,
        e.sort_pos,
        e.first_at,
        rc_bucket(e.sort_pos, geometry.base, geometry.width) AS bucket
    FROM rc_known_events AS e
    JOIN geometry USING (pk)
    WHERE rc_num(e.sort_pos) >= geometry.base
),
inside AS (
    -- the known events in each page's range: how many, and when the latest became known
    SELECT b.page_no, count(*) AS n, max(e.first_at) AS latest
    FROM buckets AS b
    JOIN events AS e
        ON e.pk = b.pk AND e.bucket = b.bucket
    WHERE e.sort_pos BETWEEN b.min_position AND b.max_position
    GROUP BY b.page_no
    UNION ALL
    SELECT w.page_no, count(*) AS n, max(e.first_at) AS latest
    FROM wide AS w
    JOIN rc_known_events AS e
        ON e.pk = w.pk
    WHERE e.sort_pos BETWEEN w.min_position AND w.max_position
    GROUP BY w.page_no
),
crowded AS (
    -- the few pages with more known events in range than their count
    SELECT page.pk, page.page_no, page.event_count
    FROM page
    JOIN inside USING (page_no)
    WHERE inside.n > page.event_count
),
crowded_in AS (
    -- their known events in range, found as above (bucket or partition)
    SELECT b.page_no, e.first_at
    FROM buckets AS b
    SEMI JOIN crowded AS c ON c.page_no = b.page_no
    JOIN (
        SELECT e.pk, e.sort_pos, e.first_at,
               rc_bucket(e.sort_pos, geometry.base, geometry.width) AS bucket
        FROM rc_known_events AS e
        JOIN geometry USING (pk)
        SEMI JOIN crowded AS c ON c.pk = e.pk
        WHERE rc_num(e.sort_pos) >= geometry.base
    ) AS e
        ON e.pk = b.pk AND e.bucket = b.bucket
    WHERE e.sort_pos BETWEEN b.min_position AND b.max_position
    UNION ALL
    SELECT w.page_no, e.first_at
    FROM wide AS w
    SEMI JOIN crowded AS c ON c.page_no = w.page_no
    JOIN rc_known_events AS e
        ON e.pk = w.pk
    WHERE e.sort_pos BETWEEN w.min_position AND w.max_position
),
crowded_at AS (
    -- the event_count-th to become known, counted out exactly
    SELECT c.page_no, list_max(min(i.first_at, c.event_count)) AS complete_at
    FROM crowded AS c
    JOIN crowded_in AS i USING (page_no)
    GROUP BY c.page_no, c.event_count
),
status AS MATERIALIZED (
    SELECT
        page.pk,
        page.page_no,
        page.scope_id,
        page.partition_id,
        page.page_id,
        page.attempt_id,
        page.fetched_at,
        page.event_count,
        page.min_position,
        page.max_position,
        coalesce(inside.n, 0) AS in_range,
        coalesce(inside.n, 0) < page.event_count AS incomplete,
        -- when the event_count-th event in range became known: the page's range is
        -- complete from then on (NULL while fewer are known). With exactly event_count
        -- events in range it is when the latest became known.
        CASE
            WHEN coalesce(inside.n, 0) < page.event_count THEN NULL
            WHEN inside.n = page.event_count THEN inside.latest
            ELSE crowded_at.complete_at
        END AS complete_at,
        own.n_receipts,
        own.first_at,
        own.last_at,
        own.own_min_pos,
        own.last_pos,
        own.last_event_id
    FROM page
    LEFT JOIN inside USING (page_no)
    LEFT JOIN crowded_at USING (page_no)
    LEFT JOIN rc_page_receipts AS own USING (scope_id, partition_id, page_id)
),
unnamed AS MATERIALIZED (
    -- the incomplete pages with receipts whose last event is not named yet
    SELECT page_no, pk, scope_id, partition_id, page_id, last_pos
    FROM status
    WHERE incomplete AND last_pos IS NOT NULL AND last_event_id IS NULL
),
named AS MATERIALIZED (
    -- the known events with a receipt at T at such a page's last position
    SELECT u.page_no, count(*) AS n, max(e.event_id) AS event_id
    FROM unnamed AS u
    JOIN rc_known_events AS e
        ON e.pk = u.pk AND e.sort_pos = u.last_pos
    WHERE e.first_at IS NOT NULL
    GROUP BY u.page_no
),
tied AS (
    -- where that is not one event: the last event of the page's own receipts there
    SELECT u.page_no, max(r.event_id) AS event_id
    FROM receipts AS r
    JOIN (
        SELECT unnamed.*
        FROM unnamed
        LEFT JOIN named USING (page_no)
        WHERE named.n IS DISTINCT FROM 1
    ) AS u
        ON u.scope_id = r.scope_id AND u.partition_id = r.partition_id
        AND u.page_id = r.page_id AND u.last_pos = r.position
    WHERE r.recorded_at <= rc_as_of()
      AND r.partition_id BETWEEN $slice_first AND $slice_last
    GROUP BY u.page_no
)
SELECT
    s.pk,
    s.scope_id,
    s.partition_id,
    s.page_id,
    s.attempt_id,
    s.fetched_at,
    s.event_count,
    s.min_position,
    s.max_position,
    s.in_range,
    s.incomplete,
    s.complete_at,
    s.n_receipts,
    s.first_at,
    s.last_at,
    s.own_min_pos,
    -- where an incomplete page blocks: right after the last event with a receipt on
    -- it ({p, 1, e, 1}), or before every event at min_position ({p, 0, '', 0})
    CASE
        WHEN s.last_pos IS NOT NULL
            THEN {
                'p': s.last_pos,
                'k': 1,
                'e': coalesce(s.last_event_id, CASE WHEN named.n = 1 THEN named.event_id END,
                              tied.event_id),
                's': 1
            }
        ELSE {'p': s.min_position, 'k': 0, 'e': '', 's': 0}
    END AS block
FROM status AS s
LEFT JOIN named USING (page_no)
LEFT JOIN tied USING (page_no)
