-- cas_chain_broken: a won write's expected_generation is not the generation of the
-- partition's previous won write (0 before the first): a lost update, or two winners.
-- Not for writes without compare-and-swap (__overwrite), whose generations the
-- reader made (report/not_applicable says so).
SELECT
    'cas_chain_broken' AS rule, 'critical' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, written_at AS at, NULL::VARCHAR AS event_id,
    attempt_id, generation, page_id,
    'won with expected generation ' || CAST(expected_generation AS VARCHAR)
        || ' but the previous won write installed ' || CAST(coalesce(previous_generation, 0) AS VARCHAR)
        AS message,
    to_json({'expected_generation': expected_generation,
             'previous_generation': coalesce(previous_generation, 0)}) AS evidence
FROM rc_won
WHERE NOT __overwrite AND expected_generation <> coalesce(previous_generation, 0)
