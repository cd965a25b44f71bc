"""Finding a log set's tables on disk: one discovery for every engine.

A table is ``<table>.parquet`` or a folder ``<table>/`` of Parquet files, possibly
under hive-style ``key=value/`` folders (CONTRACT.md §1). Files and folders whose
name starts with ``.`` or ``_`` (``_SUCCESS``, ``.crc``) are skipped, as Spark and
Hive write them beside data. A table in another layout comes as a table source
(:mod:`reconcile.logset.sources`), made by the mapping and handed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from reconcile.errors import InputError
from reconcile.logset.sources import TableSource
from reconcile.problems import Problem
from reconcile_schemas import TABLES


@dataclass(frozen=True)
class TableFiles:
    """The files of one table, sorted, with each file's hive key values."""

    name: str
    root: Path
    files: tuple[Path, ...]
    hive: tuple[dict[str, str], ...]

    @property
    def is_folder(self) -> bool:
        return self.root.is_dir()

    @property
    def hive_keys(self) -> tuple[str, ...]:
        """The hive keys of the first file (every file must have the same)."""
        return tuple(self.hive[0]) if self.hive else ()


@dataclass(frozen=True)
class LogSetFiles:
    """Where a log set's tables are; ``problems`` are layout errors found."""

    root: Path
    tables: dict[str, TableFiles]
    problems: tuple[Problem, ...]
    # the tables read from table sources (a mapping's), by name
    mapped: dict[str, TableSource] = field(default_factory=dict)
    # the mapping file they come from, for reports
    mapping: Path | None = None

    def relative(self, path: str | Path) -> str:
        """A file's name as shown to users: relative to the log set."""
        return relative_name(self.root, Path(path))


def relative_name(root: Path, path: Path) -> str:
    """A path as shown to users: relative to the log set root where it lies below it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def is_hidden(name: str) -> bool:
    """Whether a file or folder is skipped: Spark's and Hive's ``_SUCCESS``, ``.crc``."""
    return name.startswith((".", "_"))


def _hive_values(table_root: Path, file: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for part in file.relative_to(table_root).parts[:-1]:
        key, sep, value = part.partition("=")
        if sep and key:
            values[key] = unquote(value)
    return values


def _folder_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    for path in sorted(folder.rglob("*.parquet")):
        relative = path.relative_to(folder).parts
        if any(is_hidden(part) for part in relative) or not path.is_file():
            continue
        found.append(path)
    return found


def logset_root(path: str | Path) -> Path:
    """A log set's folder, resolved: what table sources are bound under before
    discovery. Raises :class:`InputError` when it does not exist or is not a folder."""
    root = Path(path)
    if not root.exists():
        raise InputError(f"log set {root}: no such directory")
    if not root.is_dir():
        raise InputError(f"log set {root}: not a directory (a log set is a folder of tables)")
    return root.resolve()


def discover(
    path: str | Path, sources: Iterable[TableSource] = (), mapping: Path | None = None
) -> LogSetFiles:
    """Find the contract tables under a log set directory.

    The tables of ``sources`` (a mapping's, bound to the user's files under
    :func:`logset_root`; ``mapping`` is its file) are read from them; the others are
    found in the contract's layout.

    Raises :class:`InputError` when the directory does not exist or is not a
    directory; a directory without tables is reported as problems, so that a
    validation run states every reason at once.
    """
    root = logset_root(path)
    tables: dict[str, TableFiles] = {}
    problems: list[Problem] = []
    mapped: dict[str, TableSource] = {source.table: source for source in sources}
    for name, source in mapped.items():
        tables[name] = TableFiles(name, root, source.files, source.hive)
    for name in TABLES:
        if name in mapped:
            continue
        single = root / f"{name}.parquet"
        folder = root / name
        if single.exists() and folder.is_dir():
            problems.append(
                Problem(
                    check="ambiguous_table",
                    table=name,
                    files=(f"{name}.parquet", f"{name}/"),
                    message=f"table {name} is both {name}.parquet and a folder {name}/;"
                    " keep one of them",
                )
            )
            continue
        if single.is_file():
            tables[name] = TableFiles(name, single, (single,), ({},))
        elif folder.is_dir():
            files = _folder_files(folder)
            hive = tuple(_hive_values(folder, f) for f in files)
            tables[name] = TableFiles(name, folder, tuple(files), hive)
            key_sets = {tuple(sorted(h)) for h in hive}
            if len(key_sets) > 1:
                problems.append(
                    Problem(
                        check="hive_keys_differ",
                        table=name,
                        files=tuple(relative_name(root, f) for f in files[:3]),
                        message=f"the files of {name}/ sit under different hive keys "
                        f"({'; '.join(', '.join(k) or '(none)' for k in sorted(key_sets))});"
                        " every file of a table needs the same key=value folders",
                    )
                )
    if not tables and not problems:
        problems.append(
            Problem(
                check="empty_log_set",
                message=f"{root} holds no contract table (looked for "
                f"<table>.parquet or <table>/ for {', '.join(TABLES)})",
            )
        )
    return LogSetFiles(root, tables, tuple(problems), mapped, mapping)
