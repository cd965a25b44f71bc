-- Pages on a traversal (§4.9), fetched by T: a page counts when its request_token
-- is null, or is the next_token of a counting page of the partition fetched earlier.
WITH RECURSIVE
page AS (
    SELECT scope_id, partition_id, page_id, request_token, next_token, fetched_at,
           finality_through, finality_inclusive
    FROM pages
    WHERE fetched_at <= rc_as_of()
),
chain AS (
    SELECT * FROM page WHERE request_token IS NULL
    UNION
    SELECT q.*
    FROM page AS q
    JOIN chain AS c
        ON q.scope_id = c.scope_id
       AND q.partition_id = c.partition_id
       AND q.request_token = c.next_token
       AND c.fetched_at < q.fetched_at
)
SELECT * FROM chain
