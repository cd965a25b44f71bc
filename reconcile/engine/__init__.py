"""The engine: CONTRACT.md §4 computed in DuckDB over a log set's views.

An :class:`~reconcile.engine.analysis.Analysis` evaluates a log set as of a time T:
it runs the named queries of ``reconcile/sql`` in a fixed order, each building one
working table (``rc_*``) in the log set's connection, and reads results from them.
"""

from reconcile.engine.analysis import Analysis, watermarks

__all__ = ["Analysis", "watermarks"]
