-- The segment tree's answer, per scope and instant number.
SELECT grp AS scope_id, idx, v FROM rc_tree_out
