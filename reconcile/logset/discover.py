"""Finding a log set's tables on disk: one discovery for every engine.

A table is ``<table>.parquet`` or a folder ``<table>/`` of Parquet files, possibly
under hive-style ``key=value/`` folders (docs/contract.md §1); a folder named
``<table>.parquet/`` (Spark's and many writers' layout: a directory of part files)
is the same as ``<table>/``. Files and folders whose name starts with ``.`` or ``_``
(``_SUCCESS``, ``.crc``, ``_temporary``) are skipped, as Spark and Hive write them
beside data; every other file in a table's folder is a part of the table, read as
Parquet whatever its name.

A log set is untrusted input, and what cannot be read is never taken as absent
(issue 19): an entry that looks like a table but is not a regular file or folder (a
FIFO, a device, a socket), a symbolic link that leads nowhere, loops, or leaves the
log set's folder, a folder that cannot be listed, and a name that differs from a
table's only in case are each a problem naming it, so that validation fails (exit
2) rather than the audit running on fewer rows. A table in another layout comes as a
table source (:mod:`reconcile.logset.sources`), made by the mapping and handed in.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from reconcile.errors import InputError, UsageError
from reconcile.logset.sources import TableSource
from reconcile.problems import Problem
from reconcile.readers.detect import WHAT, detect_source
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

    @property
    def all_files(self) -> tuple[Path, ...]:
        """Every file the log set's tables read: what the engine may open."""
        found: dict[Path, None] = {}
        for table in self.tables.values():
            found.update(dict.fromkeys(table.files))
        return tuple(found)


def relative_name(root: Path, path: Path) -> str:
    """A path as shown to users: relative to the log set root where it lies below it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def is_hidden(name: str) -> bool:
    """Whether a file or folder is skipped: Spark's and Hive's ``_SUCCESS``, ``.crc``,
    and a copy Hadoop has not finished (``part-1.parquet._COPYING_``), as Spark's own
    file listing skips them (a URL's tables are listed by Spark: the two agree)."""
    return name.startswith((".", "_")) or name.endswith("._COPYING_")


def hive_values(folders: Sequence[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The hive key values of a file under ``folders`` (its path's folders below the
    table's), and the keys named more than once on that path (an invalid layout:
    which of the values would hold is anyone's guess)."""
    values: dict[str, str] = {}
    repeated: list[str] = []
    for part in folders:
        key, sep, value = part.partition("=")
        if sep and key:
            if key in values and key not in repeated:
                repeated.append(key)
            values[key] = unquote(value)
    return values, tuple(repeated)


# DuckDB's file reading takes a backslash in a path for a folder separator: a name
# holding one would be read as another file, or none
BACKSLASH = "\\"
BACKSLASH_SAID = (
    "a backslash, which DuckDB's file reading takes for a folder separator (it would"
    " read another file, or none): rename it"
)


def unencoded_folders(folders: Sequence[str]) -> tuple[str, ...]:
    """The folders of a file's path that read as a hive key whose value holds ``=``
    (``page_id=g1=x``): DuckDB's hive reading takes such a folder for no key at all
    (the column then read as null where the files lack it), where Hive would have
    written the value percent-encoded (``g1%3Dx``). Refused, never read one way here
    and the other there."""
    return tuple(part for part in folders if part.count("=") > 1 and not part.startswith("="))


def unencoded_problem(table: str, files: Sequence[str], folders: Sequence[str]) -> Problem:
    """Files under hive folders whose values hold ``=`` (:func:`unencoded_folders`)."""
    named = sorted(set(folders))
    shown = ", ".join(named[:3])
    key, _, value = named[0].partition("=")
    encoded = f"{key}={value.replace('%', '%25').replace('=', '%3D')}"
    return Problem(
        check="hive_value_unencoded",
        table=table,
        files=tuple(files[:3]),
        message=f"hive folder {shown} holds '=' in its value, which the engine cannot read"
        f" as that key's value: percent-encode it, as Hive writes it ({encoded})",
    )


def repeated_key_problem(table: str, files: Sequence[str], keys: Sequence[str]) -> Problem:
    """A hive key named twice on the paths of ``files``."""
    return Problem(
        check="hive_key_repeated",
        table=table,
        files=tuple(files[:3]),
        message=f"hive key{'s' if len(keys) > 1 else ''} {', '.join(keys)} named more"
        " than once on a file's path (e.g. partition_id=a/partition_id=b/): give each"
        " key one folder",
    )


FILE, FOLDER = "file", "folder"


@dataclass
class _Finder:
    """One walk of a log set's folder: what each entry is, and every problem met."""

    root: Path
    problems: list[Problem] = field(default_factory=list)

    def problem(self, check: str, table: str | None, path: Path, message: str) -> None:
        name = relative_name(self.root, path)
        self.problems.append(Problem(check=check, table=table, files=(name,), message=message))

    def kind(self, path: Path, table: str | None) -> str | None:
        """FILE or FOLDER for an entry that can be read as one (following a symbolic
        link that stays inside the log set), None when absent or a problem (added)."""
        if BACKSLASH in path.name:
            self.problem("backslash_in_name", table, path, f"its name holds {BACKSLASH_SAID}")
            return None
        if not _utf8(path.name):
            # DuckDB opens a file by its name's UTF-8: one that has none (Python keeps
            # its bytes as surrogates) cannot be handed to it, nor allowed in its sandbox
            self.problem(
                "unreadable_entry",
                table,
                path,
                "cannot be read: its name is not UTF-8 text (bytes of another encoding); rename it",
            )
            return None
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            return None
        except OSError as error:
            self.problem("unreadable_entry", table, path, f"cannot be read: {_reason(error)}")
            return None
        if stat.S_ISLNK(mode):
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError) as error:
                self.problem(
                    "broken_link",
                    table,
                    path,
                    "a symbolic link that leads nowhere or to itself"
                    f" ({_reason(error)}); replace it with the file it stands for",
                )
                return None
            if not target.is_relative_to(self.root):
                self.problem(
                    "outside_log_set",
                    table,
                    path,
                    f"a symbolic link to {target}, outside the log set; the reconciler"
                    " reads a log set's own files only: copy the file into the folder",
                )
                return None
            try:
                mode = target.stat().st_mode
            except OSError as error:
                self.problem("unreadable_entry", table, path, f"cannot be read: {_reason(error)}")
                return None
        if stat.S_ISREG(mode):
            return FILE
        if stat.S_ISDIR(mode):
            return FOLDER
        self.problem(
            "not_a_file",
            table,
            path,
            f"not a regular file or folder ({_file_type(mode)}); a table is a Parquet file"
            " or a folder of them",
        )
        return None

    def folder_files(self, table: str, folder: Path) -> list[Path]:
        """Every file under a table's folder, hidden ones skipped; a folder that cannot
        be listed, and an entry that cannot be read, are problems."""
        found: list[Path] = []
        seen: set[Path] = set()
        pending = [folder]
        while pending:
            current = pending.pop()
            real = current.resolve()
            if real in seen:
                self.problem(
                    "broken_link", table, current, "a folder reached twice (a loop of links)"
                )
                continue
            seen.add(real)
            try:
                with os.scandir(current) as entries:
                    names = sorted(entry.name for entry in entries)
            except OSError as error:
                self.problem(
                    "unreadable_folder",
                    table,
                    current,
                    f"cannot be listed: {_reason(error)}; its files would be missing from"
                    f" table {table}",
                )
                continue
            folders = []
            for name in names:
                if is_hidden(name):
                    continue
                path = current / name
                kind = self.kind(path, table)
                if kind == FILE:
                    found.append(path)
                elif kind == FOLDER:
                    folders.append(path)
            pending.extend(reversed(folders))
        return sorted(found)

    def misnamed(self, names: Iterable[str]) -> None:
        """Entries whose name is a table's but for its case: never taken as absent."""
        spellings: dict[str, str] = {}
        for table in TABLES:
            spellings[table] = table
            spellings[f"{table}.parquet"] = table
        for name in names:
            found = spellings.get(name.lower())
            if found is not None and name not in spellings:
                self.problem(
                    "misnamed_table",
                    found,
                    self.root / name,
                    f"named like table {found} but for its case; rename it to"
                    f" {found}.parquet or {found}/ (names are exact)",
                )


def _utf8(name: str) -> bool:
    """Whether a file name read from the file system is UTF-8 text (Python holds the
    bytes of one that is not as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "neither file nor folder"


def logset_root(path: str | Path) -> Path:
    """A log set's folder, resolved: what table sources are bound under before
    discovery. Raises :class:`InputError` when it does not exist, is not a folder,
    or cannot be listed."""
    if not str(path).strip():
        raise InputError("the log set's path is empty: name its folder (. for this one)")
    root = Path(path)
    if not root.exists():
        raise InputError(f"log set {root}: no such directory")
    if BACKSLASH in str(root.resolve()):
        raise InputError(f"log set {root}: its path holds {BACKSLASH_SAID}")
    if not _utf8(str(root.resolve())):
        raise InputError(
            f"log set {root}: its path is not UTF-8 text (bytes of another encoding), which"
            " DuckDB cannot open; rename it"
        )
    if not root.is_dir():
        raise InputError(f"log set {root}: not a directory (a log set is a folder of tables)")
    try:
        with os.scandir(root):
            pass
    except OSError as error:
        raise InputError(f"log set {root}: cannot be listed: {_reason(error)}") from None
    return root.resolve()


def _listing(root: Path) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(entry.name for entry in entries)
    except OSError as error:
        raise InputError(f"log set {root}: cannot be listed: {_reason(error)}") from None


def discover(
    path: str | Path, sources: Iterable[TableSource] = (), mapping: Path | None = None
) -> LogSetFiles:
    """Find the contract tables under a log set directory.

    The tables of ``sources`` (a mapping's, bound to the user's files under
    :func:`logset_root`; ``mapping`` is its file) are read from them; the others are
    found in the contract's layout. A mapped table that also has files in the
    contract's layout, other than those the mapping reads, is ambiguous.

    Raises :class:`InputError` when the directory does not exist, is not a directory
    or cannot be listed; everything else (a directory without tables, an entry that
    cannot be read) is reported as problems, so that a validation run states every
    reason at once.
    """
    root = logset_root(path)
    finder = _Finder(root)
    tables: dict[str, TableFiles] = {}
    mapped: dict[str, TableSource] = {source.table: source for source in sources}
    for name, source in mapped.items():
        tables[name] = TableFiles(name, root, source.files, source.hive)
    finder.misnamed(_listing(root))
    for name in TABLES:
        entries: dict[Path, str] = {}
        for candidate in (root / f"{name}.parquet", root / name):
            kind = finder.kind(candidate, name)
            if kind is not None:
                entries[candidate] = kind
        if not entries:
            continue
        if name in mapped:
            own = set(mapped[name].files)
            for entry, kind in entries.items():
                listed = [entry] if kind == FILE else finder.folder_files(name, entry)
                if any(f.resolve() not in own for f in listed):
                    finder.problem(
                        "ambiguous_table",
                        name,
                        entry,
                        f"table {name} is read through the mapping {mapping}, and is also"
                        " in the contract's layout here; keep one of them",
                    )
            continue
        if len(entries) > 1:
            shown = tuple(
                relative_name(root, e) + ("/" if k == FOLDER else "") for e, k in entries.items()
            )
            finder.problems.append(
                Problem(
                    check="ambiguous_table",
                    table=name,
                    files=shown,
                    message=f"table {name} is both {' and '.join(shown)}; keep one of them",
                )
            )
            continue
        ((entry, kind),) = entries.items()
        if kind == FILE:
            tables[name] = TableFiles(name, entry, (entry,), ({},))
            continue
        files = finder.folder_files(name, entry)
        found = [hive_values(f.relative_to(entry).parts[:-1]) for f in files]
        hive = tuple(values for values, _ in found)
        tables[name] = TableFiles(name, entry, tuple(files), hive)
        repeats = [(f, keys) for f, (_, keys) in zip(files, found, strict=True) if keys]
        unencoded = [(f, unencoded_folders(f.relative_to(entry).parts[:-1])) for f in files]
        unencoded = [(f, parts) for f, parts in unencoded if parts]
        if unencoded:
            finder.problems.append(
                unencoded_problem(
                    name,
                    [relative_name(root, f) for f, _ in unencoded],
                    [p for _, parts in unencoded for p in parts],
                )
            )
        if repeats:
            named_twice = sorted({k for _, ks in repeats for k in ks})
            on = [relative_name(root, f) for f, _ in repeats]
            finder.problems.append(repeated_key_problem(name, on, named_twice))
        key_sets = {tuple(sorted(h)) for h in hive}
        if len(key_sets) > 1:
            finder.problems.append(
                Problem(
                    check="hive_keys_differ",
                    table=name,
                    files=tuple(relative_name(root, f) for f in files[:3]),
                    message=f"the files of {relative_name(root, entry)}/ sit under different"
                    " hive keys ("
                    f"{'; '.join(', '.join(k) or '(none)' for k in sorted(key_sets))});"
                    " every file of a table needs the same key=value folders",
                )
            )
    problems = finder.problems
    if not tables and not problems:
        try:
            framework = detect_source(root) if root.is_dir() else None
        except UsageError:
            framework = None  # several frameworks' artifacts: no single reader to name
        hint = (
            f"; it holds {WHAT[framework]}: audit it with reconcile audit {root} --source"
            f" {framework} (docs/readers.md)"
            if framework
            else ""
        )
        problems.append(
            Problem(
                check="empty_log_set",
                message=f"{root} holds no contract table (looked for "
                f"<table>.parquet or <table>/ for {', '.join(TABLES)}){hint}",
            )
        )
    return LogSetFiles(root, tables, tuple(problems), mapped, mapping)
