-- The segment tree's answer, per scope and instant number.
-- A template: rc_tree_out is bound per tree.
SELECT grp AS scope_id, idx, v FROM rc_tree_out
