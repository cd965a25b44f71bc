"""The exit statuses of the ``reconcile`` command, one meaning each (see
:mod:`reconcile.cli`); :func:`reconcile.commands.failure` is the one place that
maps an error to its status."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2
EXIT_INTERNAL = 3
EXIT_RESOURCES = 4
EXIT_INTERRUPTED = 130
# what it printed was cut short: its reader closed the pipe (``| head``); 128 + SIGPIPE
EXIT_OUTPUT_CLOSED = 141

EXIT_STATUSES = """\
exit status:
  0    done; for audit, no finding at or above --fail-on (for diff, no new one)
  1    audit: findings at or above --fail-on; diff: new ones
  2    invalid input or usage: a log set (or, for diff, a report) that cannot be
       read or breaks the contract, a bad mapping, option or argument
  3    internal error: the reconciler's own fault (please report it; --debug
       shows the traceback), or a Spark job that failed
  4    out of memory or spill space: set --memory-limit, --threads or --temp-dir
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM), 129 hung up (SIGHUP)
  141  the output was closed before all of it was printed (e.g. | head), or could
       not be written (> /dev/full): an audit's report is written all the same"""
