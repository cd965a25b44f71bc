-- The streams the Singer reader audits: those with a replication key (a full-table
-- stream has no cursor; inputs.source.not_audited names it).
SELECT stream FROM rc_singer_streams WHERE replication_key IS NOT NULL ORDER BY stream
