"""The Spark engine (``--engine spark``): the same audit, spread over a Spark cluster.

Spark reads the log set's files (any path its Hadoop file systems read), splits every
file's rows by scope, and moves each scope's rows to one task: the *scope kernel*
(:mod:`reconcile.spark.kernel`) lays them out as a log set on the executor's local
disk and runs the engine's own named steps on it, in DuckDB. The driver only
concatenates the scopes' outputs. Every step therefore has one definition, and the
two engines agree by construction: the engine difference is where a scope's rows
come from, isolated in :mod:`reconcile.spark.scatter` and :mod:`reconcile.spark.run`.

Scopes are independent by the contract (every output row, frontier and rule is
within one scope), so a scope is the unit of work; what is whole-log-set (the end of
the log set, the tables present) is computed by the driver and handed to every task.
"""
