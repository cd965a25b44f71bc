-- Each non-empty page fetched by T of a partition with receipts evidence (§4.7):
-- how many distinct known events lie in [min_position, max_position], when the
-- event_count-th of them became known, and where it blocks when fewer are known.
-- Events are matched to pages by an equi-join on position buckets (as wide as a
-- typical page) rather than a band join; pages much wider than that are matched by
-- partition alone. The pages of the slice of partitions in rc_slice.
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
)
SELECT
    page.pk,
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
    -- where an incomplete page blocks: right after the last event with a receipt on
    -- it ({p, 1, e, 1}), or before every event at min_position ({p, 0, '', 0})
    CASE
        WHEN own.last_event IS NOT NULL
            THEN {'p': own.last_event.p, 'k': 1, 'e': own.last_event.e, 's': 1}
        ELSE {'p': page.min_position, 'k': 0, 'e': '', 's': 0}
    END AS block
FROM page
LEFT JOIN inside USING (page_no)
LEFT JOIN crowded_at USING (page_no)
LEFT JOIN rc_page_receipts AS own USING (scope_id, partition_id, page_id)
