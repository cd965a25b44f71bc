"""Starting a Spark session for the Spark engine: local, a cluster, or Spark Connect."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reconcile.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"

# Arrow batches of one row: the scatter reads one file per batch, and the scope
# kernel receives one (file, scope) piece at a time, so a task holds one piece.
SESSION_CONF: dict[str, str] = {
    "spark.sql.execution.arrow.maxRecordsPerBatch": "1",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.showConsoleProgress": "false",
}


def _java_major(java: str) -> int | None:
    try:
        done = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return None
    for line in (done.stderr + done.stdout).splitlines():
        if "version" in line and '"' in line:
            text = line.split('"')[1]
            head = text.split(".")[1] if text.startswith("1.") else text.split(".")[0]
            head = head.split("-")[0].split("+")[0]
            return int(head) if head.isdigit() else None
    return None


def _installed_java() -> str | None:
    """A Java 17 or 21 among the JDKs installed side by side (Debian's /usr/lib/jvm)."""
    for candidate in sorted(Path("/usr/lib/jvm").glob("*/bin/java")):
        if _java_major(str(candidate)) in (17, 21):
            return str(candidate.resolve().parent.parent)
    return None


def check_java() -> None:
    """Fail with a clear error when no Java that Spark 4 runs on (17 or 21) is found.
    Without JAVA_HOME, and with another Java on PATH, an installed 17 or 21 is used."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if home is None and (java is None or _java_major(java) not in (17, 21)):
        found = _installed_java()
        if found is not None:
            os.environ["JAVA_HOME"] = found
            return
    where = f"JAVA_HOME={home}" if home else "java on PATH"
    if java is None:
        raise UsageError(
            "the Spark engine needs Java 17 or 21: none found (set JAVA_HOME, or install"
            " openjdk-17-jre-headless)"
        )
    major = _java_major(java)
    if major not in (17, 21):
        raise UsageError(
            f"the Spark engine needs Java 17 or 21; {where} is Java {major or 'unknown'}"
            " (set JAVA_HOME to a Java 17 or 21)"
        )


def connect_session(url: str, conf: Mapping[str, str] | None = None) -> SparkSession:
    """A Spark Connect session (``sc://host:port``; ``local[N]`` starts a local
    Connect server). Only SQL settings can be changed through Connect."""
    from pyspark.sql import SparkSession  # noqa: PLC0415 (optional dependency)

    builder = SparkSession.builder.remote(url)
    settings = {**SESSION_CONF, **(conf or {})}
    for key, value in settings.items():
        if key.startswith("spark.sql.") or (conf and key in conf):
            builder = builder.config(key, value)
    return builder.getOrCreate()


def spark_session(master: str | None = None, conf: Mapping[str, str] | None = None) -> SparkSession:
    """A Spark session: ``sc://host:port`` connects to Spark Connect; any other
    master URL (``local[2]``, ``spark://host:7077``, ``yarn``) starts a driver here;
    None takes the master ``spark-submit`` was given, or starts ``local[*]``."""
    try:
        from pyspark.sql import SparkSession  # noqa: PLC0415 (optional dependency)
    except ImportError:
        raise UsageError("the Spark engine needs PySpark: pip install 'reconcile[spark]'") from None
    builder = SparkSession.builder.appName("reconcile")
    settings = {**SESSION_CONF, **(conf or {})}
    for key, value in settings.items():
        builder = builder.config(key, value)
    if master is not None and master.startswith("sc://"):
        return connect_session(master, conf)
    if master is None and "PYSPARK_GATEWAY_PORT" in os.environ:
        # under spark-submit: its JVM and its --master are already there
        return builder.getOrCreate()
    check_java()
    # the executors of a local session run this interpreter, which has reconcile
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = builder.master(master or DEFAULT_MASTER).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def quiet(session: SparkSession) -> None:
    """Spark's own log off but for fatal errors: a task that fails is logged by its
    executor (in local mode, on this terminal) with its Python traceback, where the
    command says why in one line instead (``--debug`` keeps the log). A Spark Connect
    session's log is the server's."""
    if not type(session).__module__.startswith("pyspark.sql.connect"):
        session.sparkContext.setLogLevel("FATAL")
