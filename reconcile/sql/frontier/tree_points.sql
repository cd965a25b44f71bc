-- Every instant, as a point of the segment tree.
SELECT scope_id AS grp, idx FROM rc_instants
