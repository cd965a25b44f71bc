-- The receiving steps of the pages whose block can hold the proven frontier
-- (rc_contending_pages), from every page's steps (rc_moving_steps), where a phase
-- is given those instead of the receipts (history/moving_steps on the contending
-- pages' windows makes the same rows from the receipts).
SELECT s.*
FROM rc_moving_steps AS s
SEMI JOIN rc_contending_pages AS c
    ON c.scope_id = s.scope_id AND c.partition_id = s.partition_id AND c.page_id = s.page_id
