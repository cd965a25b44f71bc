-- Every stored version of a dlt pipeline's state (rc_dlt_states_raw: its
-- _dlt_pipeline_state), still compressed, with the load that stored it, in the order
-- they were stored. The reader opens each (a few per load, at most) for its
-- incremental cursors.
SELECT
    CAST(pipeline_name AS VARCHAR) AS pipeline_name,
    CAST(version AS BIGINT) AS version,
    CAST(load_id AS VARCHAR) AS load_id,
    make_timestamp_ns(epoch_ns(CAST(created_at AS TIMESTAMPTZ))) AS created_at,
    CAST(state AS VARCHAR) AS state
FROM rc_dlt_states_raw
ORDER BY load_id, version
