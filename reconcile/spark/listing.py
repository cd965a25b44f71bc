"""Finding a log set's files for the Spark engine: a local folder through the
engine's own discovery, or a URL listed through Spark's Hadoop file systems with the
same layout rules."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from reconcile.errors import InputError
from reconcile.logset.discover import (
    BACKSLASH,
    BACKSLASH_SAID,
    hive_values,
    is_hidden,
    relative_name,
    repeated_key_problem,
    unencoded_folders,
    unencoded_problem,
)
from reconcile.mapping import LogMapping
from reconcile.mapping.bind import MappedTable
from reconcile.mapping.discover import discover_with_mapping
from reconcile.problems import Problem
from reconcile.spark.scatter import SourceFile
from reconcile_schemas import TABLES

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# Hadoop's glob pattern characters (org.apache.hadoop.fs.GlobPattern), and its escape
_GLOB = re.compile(r"[\\{}\[\]*?]")


def hadoop_literal(uri: str) -> str:
    """``uri`` as Hadoop's file sources take it to mean that path: they read a path as
    a glob pattern (``run[1]`` matched ``run1``; a file ``x{1,2}.parquet`` was read as
    x1 and x2, and itself never), so each pattern character is escaped."""
    return _GLOB.sub(r"\\\g<0>", uri)


def is_remote(path: str) -> bool:
    """Whether a log set path is a URL (``hdfs://``, ``s3a://``, ``file://``), listed
    through Spark's file systems, rather than a local folder."""
    return len(urlparse(path).scheme) > 1


def layout(root: str, relpaths: Iterable[str]) -> tuple[dict[str, SourceFile], list[Problem]]:
    """The contract tables among a log set's file names (relative, ``/``-separated),
    by the rules of :func:`reconcile.logset.discover.discover`: ``<table>.parquet``,
    or every file not hidden under a folder ``<table>/`` or ``<table>.parquet/``."""
    sources: dict[str, SourceFile] = {}
    problems: list[Problem] = []
    names = []
    for name in sorted(set(relpaths)):
        if BACKSLASH in name:  # as discovery: read as another file, or none, on one machine
            problems.append(
                Problem(
                    check="backslash_in_name",
                    table=next(
                        (t for t in TABLES if name.split("/")[0] in (t, f"{t}.parquet")), None
                    ),
                    files=(name,),
                    message=f"its name holds {BACKSLASH_SAID}",
                )
            )
        else:
            names.append(name)
    for table in TABLES:
        single = f"{table}.parquet"
        forms: dict[str, list[str]] = {}
        if single in names:
            forms[single] = [single]
        for folder in (table, single):
            inside = [
                n
                for n in names
                if n.startswith(f"{folder}/") and not any(is_hidden(p) for p in n.split("/")[1:])
            ]
            if inside:
                forms[f"{folder}/"] = inside
        if len(forms) > 1:
            shown = tuple(forms)
            problems.append(
                Problem(
                    check="ambiguous_table",
                    table=table,
                    files=shown,
                    message=f"table {table} is both {' and '.join(shown)}; keep one of them",
                )
            )
            continue
        for chosen in forms.values():
            repeats: list[tuple[str, tuple[str, ...]]] = []
            unencoded: list[tuple[str, tuple[str, ...]]] = []
            for name in chosen:
                parts = name.split("/")
                hive, keys = hive_values(parts[1:-1]) if len(parts) > 1 else ({}, ())
                if keys:
                    repeats.append((name, keys))
                if unencoded_folders(parts[1:-1]):
                    unencoded.append((name, unencoded_folders(parts[1:-1])))
                sources[name] = SourceFile(table, name, f"{root.rstrip('/')}/{name}", hive)
            if unencoded:
                folders = [p for _, parts in unencoded for p in parts]
                problems.append(unencoded_problem(table, [n for n, _ in unencoded], folders))
            if repeats:
                keys = tuple(sorted({k for _, ks in repeats for k in ks}))
                problems.append(repeated_key_problem(table, [n for n, _ in repeats], keys))
    return sources, problems


def local_sources(
    path: str, mapping: LogMapping | str | Path | None = None
) -> tuple[str, dict[str, SourceFile], list[Problem], tuple[str, ...]]:
    """A local log set's files, by the engine's own discovery; with a mapping (given,
    or the folder's reconcile.toml), the user's files of each mapped table, each to be
    read through it and laid out as ``<table>/NNNNN.parquet``. Last, the tables that
    are there without a file (a folder ``<table>/`` of none: §1's "any number")."""
    files = discover_with_mapping(path, mapping)
    sources: dict[str, SourceFile] = {}
    empty = tuple(t.name for t in files.tables.values() if not t.files)
    for table in files.tables.values():
        mapped = files.mapped.get(table.name)
        for number, (file, hive) in enumerate(zip(table.files, table.hive, strict=True)):
            name = relative_name(files.root, file)
            # not as_uri(): Hadoop reads the path as written, and would look for
            # "scope_id%3Ds0" where the folder is "scope_id=s0"
            uri = f"file://{file.as_posix()}"
            if mapped is None:
                sources[name] = SourceFile(table.name, name, uri, dict(hive))
                continue
            assert isinstance(mapped, MappedTable)  # executors read it through the mapping
            relpath = f"{table.name}/{number:05d}.parquet"
            sources[relpath] = SourceFile(table.name, relpath, uri, {}, mapped, name)
    return str(files.root), sources, list(files.problems), empty


def remote_sources(
    spark: SparkSession, path: str
) -> tuple[str, dict[str, SourceFile], list[Problem]]:
    """A log set on a Hadoop file system, listed by Spark (no data read). The listing
    is the file index's (``inputFiles``), which holds files of 0 bytes too: a scan of
    the files would skip those, and a table whose only file is one would be absent
    where it cannot be read (:meth:`SparkEngine.read_facts` names them)."""
    root = path.rstrip("/")
    try:
        listed = (
            spark.read.format("binaryFile")
            .option("recursiveFileLookup", "true")
            .load(hadoop_literal(root))
            .inputFiles()
        )
    except Exception as error:
        raise InputError(f"log set {root}: cannot be listed: {error}") from None
    base = unquote(urlparse(root).path).rstrip("/")
    relpaths = []
    for uri in listed:
        # the index gives each path as a URI (its own characters %-escaped)
        full = unquote(urlparse(uri).path)
        if full.startswith(base + "/"):
            relpaths.append(full[len(base) + 1 :])
    sources, problems = layout(root, relpaths)
    return root, sources, problems
