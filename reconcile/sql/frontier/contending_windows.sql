-- The windows (rc_page_windows) of the pages whose block can hold the proven
-- frontier while their receipts come (rc_contending_pages).
SELECT w.*
FROM rc_page_windows AS w
SEMI JOIN rc_contending_pages AS c
    ON c.scope_id = w.scope_id AND c.partition_id = w.partition_id AND c.page_id = w.page_id
