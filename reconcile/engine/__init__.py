"""The engine: docs/contract.md §4 and §5 computed in DuckDB over a log set's views.

The pipeline is declared (:mod:`reconcile.engine.declare`, :mod:`~.steps`,
:mod:`~.registry`): every step names its query and the tables it reads and
produces. An :class:`~reconcile.engine.analysis.Analysis` evaluates a log set as of
a time T in a namespace of its own: the planner (:mod:`~.plan`) orders what a result
needs, the namespace (:mod:`~.namespace`) runs it. The names below are imported on
first use (:mod:`reconcile.lazy`).
"""

from typing import TYPE_CHECKING

from reconcile.lazy import exports

if TYPE_CHECKING:
    from reconcile.engine.analysis import Analysis, watermarks
    from reconcile.engine.settings import AuditSettings

__all__ = ["Analysis", "AuditSettings", "watermarks"]

if not TYPE_CHECKING:  # mypy checks the names above, not a __getattr__
    __getattr__ = exports(
        __name__,
        {
            "Analysis": "reconcile.engine.analysis",
            "watermarks": "reconcile.engine.analysis",
            "AuditSettings": "reconcile.engine.settings",
        },
    )
