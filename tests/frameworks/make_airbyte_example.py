"""Write the bundled Airbyte example (data/airbyte/): two syncs of the real Airbyte
CDK source (tests/frameworks/airbyte_source.py, reading its cursor with '>=') over a
source in which a row commits late, under the first sync's state; the configured
catalog; the source's extract; and truth.json, the row the fault lost and the
finding an audit must report.

    uv run python -m tests.frameworks.make_airbyte_example data/airbyte

The records carry the times they were emitted at, so the files differ from one making
to the next; tests/test_framework_examples.py checks the committed ones against truth.json.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.frameworks.airbyte_pipeline import Pipeline, rows
from tests.frameworks.examples import write_truth


def make(target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    with tempfile.TemporaryDirectory() as work:
        pipe = Pipeline(Path(work), ">=", logs=target)
        pipe.source = rows(range(40))  # cursors 0..19, pages of 3
        pipe.run()
        pipe.source += [{"id": "late-0007", "updated_at": 7, "value": "v"}, *rows(range(40, 60))]
        pipe.run()
        pipe.extract()
    write_truth(
        target,
        "airbyte",
        {
            "stream": "items",
            "key": "late-0007",
            "cursor": 7,
            "note": "committed at the source after sync-001's state reached 19;"
            " sync-002 resumes at >= 19 and never reads it",
        },
    )


if __name__ == "__main__":
    make(Path(sys.argv[1]))
