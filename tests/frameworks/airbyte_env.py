"""The Airbyte CDK's own environment (tests/frameworks/airbyte_harness: its
pyproject.toml and uv.lock), apart from the product's because airbyte-cdk pins
python-dateutil<3. Made on first use with the uv that runs the tests (``uv run``
names itself in ``UV``), from its lock, so the README's test command installs it as
it installs the rest."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

HARNESS = Path(__file__).resolve().parent / "airbyte_harness"
PYTHON = HARNESS / ".venv" / "bin" / "python"


def harness_python() -> Path:
    """The harness environment's Python, installed from its lock where missing."""
    with (HARNESS / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install, whichever test worker asks first
        if not _ready():
            uv = os.environ.get("UV") or shutil.which("uv")
            if uv is None:
                raise RuntimeError(
                    "the Airbyte CDK's environment is not installed, and no uv is at hand:"
                    " run the tests with uv run (README), or"
                    " uv sync --locked --project tests/frameworks/airbyte_harness"
                )
            subprocess.run(
                [uv, "sync", "--locked", "--quiet", "--project", str(HARNESS)],
                check=True,
                env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"},
            )
    return PYTHON


def _ready() -> bool:
    if not PYTHON.exists():
        return False
    probe = [str(PYTHON), "-c", "import airbyte_cdk"]
    done = subprocess.run(probe, check=False, capture_output=True)
    return done.returncode == 0
