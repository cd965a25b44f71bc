-- unproven_membership: at T a membership change still lacks its proof (§4.13),
-- counting only epochs with effective_at <= T.
SELECT
    'unproven_membership' AS rule, 'error' AS severity,
    c.scope_id, c.partition_id, c.epoch, e.effective_at AS at, NULL::VARCHAR AS event_id,
    NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    c.partition_id || CASE c.change WHEN 'join' THEN ' joined' ELSE ' left' END
        || ' at epoch ' || CAST(c.epoch AS VARCHAR) || ' without a '
        || CASE c.change WHEN 'join' THEN 'coverage proof' ELSE 'seal' END
        || ' against the cutover' AS message,
    to_json({'change': c.change, 'cutover_through': c.cutover.v,
             'cutover_inclusive': CASE WHEN NOT c.cutover_unknown THEN c.cutover.i = 1 END, 'cutover_unknown': c.cutover_unknown})
        AS evidence
FROM rc_changes AS c
JOIN rc_epochs AS e ON e.scope_id = c.scope_id AND e.epoch = c.epoch
LEFT JOIN rc_epochs AS proof ON proof.scope_id = c.scope_id AND proof.epoch = c.proved_in
WHERE e.effective_at <= rc_as_of()
  AND (c.proved_in IS NULL OR proof.effective_at > rc_as_of())
