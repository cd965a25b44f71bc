-- Certificates (docs/contract.md §2) as sortable structs {v, i}: v the normalized
-- through, i 1 inclusive / 0 exclusive. Struct order is certificate order once a
-- discrete exclusive bound is restated inclusively. NULL stands for +inf in the
-- "lower of" and "min" computations, and is never a certificate by itself.
-- A discrete exclusive bound at the lowest value (INT64_MIN, which has no
-- predecessor) certifies nothing and stays exclusive: {INT64_MIN, 0}, below every
-- other certificate, as no inclusive value lies under it; outputs write it as
-- through INT64_MIN, inclusive false.
CREATE OR REPLACE TEMP MACRO rc_cert(v, incl, discrete) AS
    CASE
        WHEN v IS NULL THEN NULL
        WHEN discrete AND NOT coalesce(incl, true) AND rc_pred(v) < v
            THEN {'v': rc_pred(v), 'i': 1}
        ELSE {'v': v, 'i': CASE WHEN coalesce(incl, true) THEN 1 ELSE 0 END}
    END;
-- Won writes that tie on written_at, generation and attempt_id (§4.11 orders them no
-- further) in one order, whatever the rows' order in the files: a null watermark
-- first, then by claim (an unknown endpoint above a known one of the same value), the
-- other columns last; the strongest claim is the latest (docs/contract.md §8). c: a
-- checkpoints row, discrete: its scope's coordinate is discrete.
CREATE OR REPLACE TEMP MACRO rc_write_tie(c, discrete) AS
    {'n': c.watermark IS NOT NULL,
     'c': coalesce(rc_cert_key(rc_cert(c.watermark, c.watermark_inclusive, discrete)), 0),
     'u': c.watermark_inclusive IS NULL, 'o': coalesce(c.ordering, ''),
     'e': coalesce(c.watermark_event_id, ''), 'r': coalesce(c.resume_token, ''),
     'p': coalesce(c.page_id, ''), 'x': c.owner_epoch, 'q': c.expected_generation};
-- (b, exclusive): the certificate a blocking position b gives.
CREATE OR REPLACE TEMP MACRO rc_before(b, discrete) AS rc_cert(b, false, discrete);
CREATE OR REPLACE TEMP MACRO rc_lower(a, b) AS
    CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a WHEN a <= b THEN a ELSE b END;
CREATE OR REPLACE TEMP MACRO rc_higher(a, b) AS
    CASE WHEN a IS NULL THEN a WHEN b IS NULL THEN b WHEN a >= b THEN a ELSE b END;
CREATE OR REPLACE TEMP MACRO rc_durable(outcome) AS outcome IN ('committed', 'dead_lettered');
-- A claim's endpoint in a finding's message: the value, and whether it is left out.
CREATE OR REPLACE TEMP MACRO rc_through_text(v, incl) AS
    CAST(v AS VARCHAR) || CASE
        WHEN incl IS NULL THEN ' (endpoint unknown)'
        WHEN NOT incl THEN ' (exclusive)'
        ELSE ''
    END;
-- The beginning and the end of time, for open intervals of TIMESTAMP_NS.
CREATE OR REPLACE TEMP MACRO rc_dawn() AS TIMESTAMP_NS '1678-01-01 00:00:00';
CREATE OR REPLACE TEMP MACRO rc_dusk() AS TIMESTAMP_NS '2261-12-31 00:00:00';
-- A partition's key: rc_partitions.pk, checked there to be unique among the log
-- set's partitions, so that the event-level tables carry one integer, not two strings.
CREATE OR REPLACE TEMP MACRO rc_pk(scope_id, partition_id) AS hash(scope_id, partition_id);
-- a // b rounded down (b > 0), where // rounds toward zero: never overflows
CREATE OR REPLACE TEMP MACRO rc_floor_div(a, b) AS a // b - CASE WHEN a % b < 0 THEN 1 ELSE 0 END;
-- What an event's receipts counted at T say, as bits (rc_receipt_events.flags):
-- 1 a durable outcome, 2 a failed one, 4 an ineligible one, 8 an ineligible one
-- with eligibility_stable, 16 two durable receipts or more (replayed), 32 seen at
-- two positions or more, 64 an ineligible one without eligibility_stable.
CREATE OR REPLACE TEMP MACRO rc_outcome_bits(outcome, stable) AS
    CASE outcome
        WHEN 'committed' THEN 1
        WHEN 'dead_lettered' THEN 1
        WHEN 'failed' THEN 2
        WHEN 'ineligible' THEN CASE WHEN stable THEN 12 ELSE 68 END
        ELSE 0
    END;
CREATE OR REPLACE TEMP MACRO rc_bit(flags, bit) AS (coalesce(flags, 0) & bit) <> 0;
-- An event's state (§4.2-§4.6) from its receipts' bits and, with snapshot evidence,
-- its snapshot row: eligible, passable and why not.
CREATE OR REPLACE TEMP MACRO rc_event_eligible(in_snapshot, snap_eligible, flags) AS
    CASE
        WHEN in_snapshot THEN snap_eligible
        ELSE NOT (rc_bit(flags, 4) AND NOT rc_bit(flags, 1))
    END;
CREATE OR REPLACE TEMP MACRO rc_event_passable(mutated, in_snapshot, snap_eligible, snap_stable, flags) AS
    NOT mutated AND (
        rc_bit(flags, 1)
        OR CASE
            WHEN in_snapshot THEN NOT snap_eligible AND snap_stable
            ELSE rc_bit(flags, 8) AND NOT rc_bit(flags, 2)
        END
    );
CREATE OR REPLACE TEMP MACRO rc_event_reason(mutated, in_snapshot, snap_eligible, flags) AS
    CASE
        WHEN mutated THEN 'ordering_mutated'
        WHEN rc_bit(flags, 2) THEN 'failed'
        WHEN NOT rc_event_eligible(in_snapshot, snap_eligible, flags)
            OR (in_snapshot AND rc_bit(flags, 4)) THEN 'unstable_ineligible'
        ELSE 'not_attempted'
    END;
-- An event whose part in the history is one wait (rc_event_waits): at one
-- position, no failed or ineligible receipt (bits 2 and 4), eligible where the
-- snapshot has it and not visible from the start (rc_records has those), with no
-- earlier snapshot rows that proved it ineligible for a while (proven_until null),
-- durable by T. It blocks from the instant it became known until its first durable
-- receipt.
CREATE OR REPLACE TEMP MACRO rc_simple_wait(mutated, in_snapshot, snap_eligible, always_visible, proven_until, flags, durable_at) AS
    NOT mutated AND (coalesce(flags, 0) & 6) = 0 AND durable_at IS NOT NULL
    AND (NOT in_snapshot OR (snap_eligible IS TRUE AND NOT always_visible AND proven_until IS NULL));
-- An event known from its receipts alone, at one position, whose every receipt is
-- durable or ineligible with eligibility_stable, one of them ineligible: its first
-- receipt made it passable, and none after undid that (no failed one, no ineligible
-- one without eligibility_stable), so it never blocks (§4.3).
CREATE OR REPLACE TEMP MACRO rc_settled_ineligible(mutated, in_snapshot, flags) AS
    NOT in_snapshot AND NOT mutated AND (coalesce(flags, 0) & 74) = 8;
-- A snapshot event that never blocks: at one position, not visible from the start,
-- proven ineligible by every visible row, and with no receipt before it became
-- visible. Not known before visible_at; known after, and passable (§4.3).
CREATE OR REPLACE TEMP MACRO rc_never_blocks(mutated, in_snapshot, snap_eligible, snap_stable, always_visible, visible_at, first_at) AS
    in_snapshot AND NOT mutated AND NOT always_visible
    AND snap_eligible IS FALSE AND snap_stable IS TRUE
    AND (first_at IS NULL OR first_at >= visible_at);

-- rc_bucket: the bucket of a coordinate, floor((v - base) / width), a whole number
-- held as a DOUBLE. Every step rounds monotonically, so the events in [lo, hi] lie
-- in the buckets from rc_bucket(lo) to rc_bucket(hi): a join on buckets finds them
-- all, and the range check that follows keeps only them. Cheaper than exact HUGEINT
-- arithmetic, and never overflows.
CREATE OR REPLACE TEMP MACRO rc_bucket(v, base, width) AS
    floor((CAST(rc_num(v) AS DOUBLE) - base) / width);
