"""Write the bundled dlt example (data/dlt/): two runs of a real dlt pipeline
(tests/frameworks/dlt_pipeline.py, dlt's default closed range, a timestamp cursor)
into a filesystem destination of Parquet files, over a source in which a row commits
late, under the first run's last_value; the source's extract; and truth.json, the row
the fault lost and the finding an audit must report.

    uv run python -m tests.frameworks.make_dlt_example data/dlt

dlt names its loads by the time they ran, so the files differ from one making to the
next; tests/test_framework_examples.py checks the committed ones against truth.json.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.frameworks.dlt_pipeline import Pipeline, rows
from tests.frameworks.examples import write_truth


def make(target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    with tempfile.TemporaryDirectory() as work:
        pipe = Pipeline(Path(work), destination="filesystem", times=True, dest=target)
        pipe.api.rows = rows(range(40))  # cursors 0..19 hours, pages of 3
        pipe.run()
        late = {"id": "late-0007", "updated_at": 7, "value": "v"}
        pipe.api.rows += [late, *rows(range(40, 60))]
        pipe.run()
        pipe.extract()
    write_truth(
        target,
        "dlt",
        {
            "table": "items",
            "key": "late-0007",
            "cursor": str(pipe.cursor(7)),
            "note": "committed at the source after the first load stored last_value"
            f" {pipe.cursor(19)}; the second run reads from there on and never reads it",
        },
    )


if __name__ == "__main__":
    make(Path(sys.argv[1]))
