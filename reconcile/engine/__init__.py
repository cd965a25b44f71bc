"""The engine: CONTRACT.md §4 and §5 computed in DuckDB over a log set's views.

The pipeline is declared (:mod:`reconcile.engine.declare`, :mod:`~.steps`,
:mod:`~.registry`): every step names its query and the tables it reads and
produces. An :class:`~reconcile.engine.analysis.Analysis` evaluates a log set as of
a time T in a namespace of its own: the planner (:mod:`~.plan`) orders what a result
needs, the namespace (:mod:`~.namespace`) runs it.
"""

from reconcile.engine.analysis import Analysis, watermarks
from reconcile.engine.settings import AuditSettings

__all__ = ["Analysis", "AuditSettings", "watermarks"]
