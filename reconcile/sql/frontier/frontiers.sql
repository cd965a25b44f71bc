-- The `frontiers` table of §6 (§4.14): per scope and basis, a scalar (the lowest
-- certificate of the epoch's members, with the members holding it) only when the
-- epoch has members, each has a certificate, every claim has a known endpoint and is
-- stated in the scope's ordering (on either basis), and the epoch is proven;
-- otherwise the vector of the members' certificates with every reason that applies.
WITH bases AS (
    SELECT * FROM (VALUES ('claimed'), ('proven')) AS b(basis)
),
member_certs AS (
    SELECT
        f.scope_id,
        b.basis,
        m.partition_id,
        CASE b.basis WHEN 'claimed' THEN c.claim ELSE c.proven END AS cert,
        -- a claim's unknown endpoint or other ordering keeps both bases vectors (§4.14)
        coalesce(c.claim IS NOT NULL AND c.latest.inclusive IS NULL, false) AS unknown,
        coalesce(c.claim_status = 'incomparable', false) AS incomparable,
        CASE
            WHEN b.basis = 'claimed' AND c.claim IS NOT NULL AND c.latest.inclusive IS NULL
                THEN c.latest.watermark
            WHEN b.basis = 'claimed' THEN c.claim.v
            ELSE c.proven.v
        END AS through,
        CASE
            WHEN b.basis = 'claimed' AND c.latest.inclusive IS NULL THEN NULL
            WHEN b.basis = 'claimed' THEN c.claim.i = 1
            ELSE c.proven.i = 1
        END AS inclusive
    FROM rc_in_force AS f
    CROSS JOIN bases AS b
    JOIN rc_members AS m
        ON m.scope_id = f.scope_id AND m.epoch = f.epoch AND m.role = 'member'
    LEFT JOIN rc_certs AS c ON c.scope_id = m.scope_id AND c.partition_id = m.partition_id
),
summary AS (
    SELECT
        scope_id,
        basis,
        count(*) AS members,
        count(*) FILTER (WHERE cert IS NULL) AS no_cert,
        count(*) FILTER (WHERE unknown) AS unknown,
        count(*) FILTER (WHERE incomparable) AS incomparable,
        min(cert) FILTER (WHERE cert IS NOT NULL AND NOT unknown AND NOT incomparable) AS lowest,
        list({'partition_id': partition_id, 'through': through, 'inclusive': inclusive}
             ORDER BY partition_id) AS vector
    FROM member_certs
    GROUP BY scope_id, basis
),
limiting AS (
    SELECT mc.scope_id, mc.basis, list(mc.partition_id ORDER BY mc.partition_id) AS partitions
    FROM member_certs AS mc
    JOIN summary AS s USING (scope_id, basis)
    WHERE mc.cert = s.lowest AND NOT mc.unknown AND NOT mc.incomparable
    GROUP BY mc.scope_id, mc.basis
),
judged AS (
    SELECT
        f.scope_id,
        b.basis,
        f.epoch,
        coalesce(s.members, 0) AS members,
        f.epoch IS NOT NULL AND coalesce(s.members, 0) > 0 AND s.no_cert = 0 AND s.unknown = 0
            AND s.incomparable = 0 AND f.proven AS scalar,
        list_filter([
            CASE WHEN f.epoch IS NOT NULL AND (coalesce(s.members, 0) = 0 OR s.no_cert > 0)
                 THEN 'no_certificate' END,
            CASE WHEN s.unknown > 0 THEN 'unknown_endpoint' END,
            CASE WHEN s.incomparable > 0 THEN 'incomparable_ordering' END,
            CASE WHEN f.epoch IS NULL OR NOT f.proven THEN 'unproven_membership' END
        ], lambda r: r IS NOT NULL) AS reasons,
        s.lowest,
        s.vector,
        l.partitions
    FROM rc_in_force AS f
    CROSS JOIN bases AS b
    LEFT JOIN summary AS s ON s.scope_id = f.scope_id AND s.basis = b.basis
    LEFT JOIN limiting AS l ON l.scope_id = f.scope_id AND l.basis = b.basis
)
SELECT
    rc_as_of() AS as_of,
    scope_id,
    basis,
    epoch,
    CASE WHEN scalar THEN 'scalar' ELSE 'vector' END AS kind,
    CASE WHEN scalar THEN lowest.v END AS frontier,
    CASE WHEN scalar THEN lowest.i = 1 END AS frontier_inclusive,
    CASE WHEN scalar THEN partitions ELSE [] END AS limiting_partitions,
    CASE WHEN scalar THEN [] ELSE reasons END AS reasons,
    members,
    CASE WHEN scalar THEN NULL ELSE coalesce(vector, []) END AS vector
FROM judged
ORDER BY scope_id, basis
