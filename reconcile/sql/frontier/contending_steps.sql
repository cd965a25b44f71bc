-- The receiving steps (rc_moving_steps) of the pages whose block can hold the proven
-- frontier (rc_contending_pages), gathered into a table of their own so that the
-- search for their instants (frontier/proven_segments) reads full chunks of them.
SELECT s.scope_id, s.partition_id, s.from_t, s.to_t, s.cert
FROM rc_moving_steps AS s
SEMI JOIN rc_contending_pages AS c
    ON c.scope_id = s.scope_id AND c.partition_id = s.partition_id AND c.page_id = s.page_id
