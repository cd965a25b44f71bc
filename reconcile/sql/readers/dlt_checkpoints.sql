-- checkpoints, without compare-and-swap (docs/contract.md §3): each stored state's
-- last_value of each incremental cursor (rc_dlt_cursors), a write of its table's
-- checkpoint, where dlt would restore that state: a SQL destination restores only the
-- states of completed loads; a filesystem destination ($any_state) the newest state
-- file, whether its load completed or not. It is dated when its load completed, else
-- when the state was made. The claim is exclusive of last_value where the state keeps
-- the boundary's row hashes (the next run reads last_value again and skips only those
-- rows), else inclusive: the strongest reading, for the receipts to judge.
SELECT
    c.stream AS scope_id,
    c.stream AS partition_id,
    c.load_id AS attempt_id,
    coalesce(l.loaded_at, c.created_at) AS written_at,
    CAST(NULL AS VARCHAR) AS resume_token,
    CAST(NULL AS VARCHAR) AS page_id,
    -- a last_value the cursor's reading cannot read is refused, never a claim of
    -- nothing (which would hide what it skipped)
    CASE
        WHEN rc_source_cursor(c.last_value) IS NULL
            THEN error(format(
                'the state stored by load {} holds last_value "{}" for {}, which is not a value'
                || ' of the kind its cursor column holds: what it claims cannot be read',
                c.load_id, c.last_value, c.stream))
        ELSE rc_source_cursor(c.last_value)
    END AS watermark,
    c.boundary_hashes = 0 AS watermark_inclusive,
    CAST(NULL AS VARCHAR) AS watermark_event_id,
    CAST(NULL AS VARCHAR) AS ordering
FROM rc_dlt_cursors AS c
LEFT JOIN rc_dlt_loads AS l USING (load_id)
WHERE c.last_value IS NOT NULL
  AND (l.load_id IS NOT NULL OR $any_state)
ORDER BY written_at, c.stream
