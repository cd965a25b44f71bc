"""Write the bundled Singer example (data/singer/): two runs of the real Singer SDK
tap (tests/frameworks/singer_tap.py, with the SDK's own '>=' cursor) over a source in
which a row commits late, under the first run's bookmark; the source's extract; and
truth.json, the row the fault lost and the finding an audit must report.

    uv run python -m tests.frameworks.make_singer_example data/singer

The runs carry the times they ran at, so the files differ from one making to the
next; tests/test_framework_examples.py checks the committed ones against truth.json.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.frameworks.examples import write_truth
from tests.frameworks.singer_pipeline import Pipeline, rows


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
        "singer",
        {
            "stream": "items",
            "key": "late-0007",
            "cursor": 7,
            "note": "committed at the source after run-001 bookmarked 19; run-002"
            " resumes at >= 19 and never reads it",
        },
    )


if __name__ == "__main__":
    make(Path(sys.argv[1]))
