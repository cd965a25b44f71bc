-- The newest stored version of each dlt schema (rc_dlt_versions_raw: its
-- _dlt_version), as JSON text: its tables' columns, primary keys and incremental
-- hints.
SELECT
    CAST(schema_name AS VARCHAR) AS schema_name,
    arg_max(CAST(schema AS VARCHAR), CAST(version AS BIGINT)) AS schema
FROM rc_dlt_versions_raw
GROUP BY ALL
ORDER BY schema_name
