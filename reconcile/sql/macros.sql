-- Certificates (CONTRACT.md §2) as sortable structs {v, i}: v the normalized
-- through, i 1 inclusive / 0 exclusive. Struct order is certificate order once a
-- discrete exclusive bound is restated inclusively. NULL stands for +inf in the
-- "lower of" and "min" computations, and is never a certificate by itself.
CREATE OR REPLACE TEMP MACRO rc_cert(v, incl, discrete) AS
    CASE
        WHEN v IS NULL THEN NULL
        WHEN discrete AND NOT coalesce(incl, true) THEN {'v': rc_pred(v), 'i': 1}
        ELSE {'v': v, 'i': CASE WHEN coalesce(incl, true) THEN 1 ELSE 0 END}
    END;
-- (b, exclusive): the certificate a blocking position b gives.
CREATE OR REPLACE TEMP MACRO rc_before(b, discrete) AS rc_cert(b, false, discrete);
CREATE OR REPLACE TEMP MACRO rc_lower(a, b) AS
    CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a WHEN a <= b THEN a ELSE b END;
CREATE OR REPLACE TEMP MACRO rc_higher(a, b) AS
    CASE WHEN a IS NULL THEN a WHEN b IS NULL THEN b WHEN a >= b THEN a ELSE b END;
CREATE OR REPLACE TEMP MACRO rc_durable(outcome) AS outcome IN ('committed', 'dead_lettered');
-- The beginning and the end of time, for open intervals of TIMESTAMP_NS.
CREATE OR REPLACE TEMP MACRO rc_dawn() AS TIMESTAMP_NS '1678-01-01 00:00:00';
CREATE OR REPLACE TEMP MACRO rc_dusk() AS TIMESTAMP_NS '2261-12-31 00:00:00';
