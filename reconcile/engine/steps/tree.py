"""A segment tree in SQL (``sql/tree``): the least value of many intervals at every
point of a numbered set, in O((intervals + points) log points) rows, never
intervals × points. The merged frontier's history runs two (over instant numbers,
:mod:`reconcile.engine.steps.frontier`); the exact evaluator runs one per set of
points, over each partition's points (:mod:`reconcile.engine.steps.history`).
"""

from __future__ import annotations

from reconcile.engine.declare import Step, table

# The tree's input: value v holds on points [lo, hi) of group grp.
INTERVALS = "grp VARCHAR, lo BIGINT, hi BIGINT, v CERT"


def segment_tree_minimum(name: str, intervals: str, points: str) -> tuple[Step, ...]:
    """The least value of the intervals of table ``intervals`` (:data:`INTERVALS`)
    at every point of table ``points`` (``grp VARCHAR, idx BIGINT``), into
    ``rc_<name>_tree_out`` (``grp, idx, v``; v null where no interval covers it)."""
    nodes = f"rc_{name}_tree_nodes"
    return (
        Step(
            "tree/nodes",
            table(
                nodes,
                "grp VARCHAR, k BIGINT, block BIGINT, v HUGEINT",
                "the tree's nodes: the least value (its key, rc_cert_key) over each block"
                " of 2^k points covered whole by an interval",
                transient=True,
            ),
            reads=(intervals,),
            bind=(("rc_tree_in", intervals),),
        ),
        Step(
            "tree/query",
            table(
                f"rc_{name}_tree_out",
                "grp VARCHAR, idx BIGINT, v CERT",
                "the least value at every point",
                transient=True,
            ),
            reads=(nodes, points),
            bind=(("rc_tree_nodes", nodes),)
            + ((("rc_tree_points", points),) if points != "rc_tree_points" else ()),
        ),
    )
