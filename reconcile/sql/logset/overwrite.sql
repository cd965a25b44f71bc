-- Checkpoints written without compare-and-swap (docs/contract.md §3, "checkpoints
-- without compare-and-swap"): the rows of files that lack owner_epoch,
-- expected_generation, generation and cas_result. Every such write wins, in
-- written_at order: its generation is its rank in its partition by (written_at,
-- attempt_id, __file, __row), expected_generation the rank before, owner_epoch 0.
-- Writes of one partition at one written_at tie; a tie is broken by that order only
-- where the tied writes agree on their state (validation's rule
-- checkpoints_overwrite_tie refuses the others). The other rows pass unchanged.
-- Reads rc_checkpoints_read, the normalized view with __overwrite (true for a row of
-- such a file).
SELECT
    * EXCLUDE (rank_) REPLACE (
        CASE WHEN __overwrite THEN 0 ELSE owner_epoch END AS owner_epoch,
        CASE WHEN __overwrite THEN rank_ - 1 ELSE expected_generation END AS expected_generation,
        CASE WHEN __overwrite THEN rank_ ELSE generation END AS generation,
        CASE WHEN __overwrite THEN 'won' ELSE cas_result END AS cas_result
    )
FROM (
    SELECT
        *,
        row_number() OVER (
            PARTITION BY scope_id, partition_id, __overwrite
            ORDER BY written_at, attempt_id, __file, __row
        ) AS rank_
    FROM rc_checkpoints_read
)
