-- Each completed load of a dlt dataset (rc_dlt_loads_raw: its _dlt_loads, where a load
-- is written with status 0 once every job of its package is in the destination): its
-- id and the time it completed, as naive UTC nanoseconds.
SELECT
    CAST(load_id AS VARCHAR) AS load_id,
    make_timestamp_ns(epoch_ns(min(CAST(inserted_at AS TIMESTAMPTZ)))) AS loaded_at
FROM rc_dlt_loads_raw
WHERE status = 0
GROUP BY ALL
