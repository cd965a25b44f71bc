"""Simulated paginated ingestion runs, with faults injected on purpose.

``simulate(out, options)`` (:mod:`~.write`) writes a full log set (every table of
docs/contract.md §3) and ``truth.json``: each injected fault, where it was injected, and
the findings an audit must report, including the benign ones (``replayed_events``).
The knobs are in :mod:`~.options`, which loads nothing heavy (the command line's
parser reads it); the names below are imported on first use.
"""

from typing import TYPE_CHECKING

from reconcile.lazy import exports

if TYPE_CHECKING:
    from reconcile.simulate.faults import SimulationError
    from reconcile.simulate.options import FAULTS, SimOptions
    from reconcile.simulate.write import SimulationResult, simulate

__all__ = ["FAULTS", "SimOptions", "SimulationError", "SimulationResult", "simulate"]

if not TYPE_CHECKING:  # mypy checks the names above, not a __getattr__
    __getattr__ = exports(
        __name__,
        {
            "FAULTS": "reconcile.simulate.options",
            "SimOptions": "reconcile.simulate.options",
            "SimulationError": "reconcile.simulate.faults",
            "SimulationResult": "reconcile.simulate.write",
            "simulate": "reconcile.simulate.write",
        },
    )
