-- Guard on rc_partitions: partitions whose 64-bit key (rc_pk) another partition
-- shares. The event-level tables carry the key alone, so there must be none.
SELECT count(*) - count(DISTINCT pk) FROM rc_partitions
