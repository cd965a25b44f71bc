-- Each epoch, proven or not (§4.13): proven when every change at or before it has
-- its proof in it or an earlier epoch. The first epoch needs none.
SELECT
    e.*,
    NOT EXISTS (
        SELECT 1 FROM rc_changes AS c
        WHERE c.scope_id = e.scope_id AND c.epoch <= e.epoch
          AND (c.proved_in IS NULL OR c.proved_in > e.epoch)
    ) AS proven,
    (SELECT count(*) FROM rc_members AS m
     WHERE m.scope_id = e.scope_id AND m.epoch = e.epoch AND m.role = 'member') AS members
FROM rc_epochs AS e
