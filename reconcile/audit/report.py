"""Writing an audit's report directory, atomically, and never over anything else.

What a reader of DIR can ever observe (issue 19):

* DIR absent (before the first report), or a complete report: never a half-written
  one, never none once there was one. The report is written into a fresh folder
  beside DIR (``.DIR.partial-PID``) and swapped with the earlier report in one
  atomic exchange of the two names (Linux ``renameat2(RENAME_EXCHANGE)``); the
  earlier report, now in the fresh folder's place, is then removed. Where the file
  system cannot exchange names, the earlier report is moved aside
  (``.DIR.previous-PID``) and the new one moved in: a run killed between those two
  renames leaves no DIR for that instant, and the next run puts the earlier report
  back before anything else.
* A reader holding a file of the earlier report open keeps reading it; its path
  then names the new report's file.

A target is replaced only when it is absent, an empty folder, or a reconcile report:
a folder holding the report's files and nothing else, its ``summary.json`` written by
``reconcile audit``. A target inside the log set, or holding it, is refused. Writers
of reports in one folder are serialized by a lock on that folder (another audit
writing there is waited for); leftovers of a writer that was killed (its partial
folder, its moved-aside report) are cleaned up by the next one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl

from reconcile.atomic import is_mount_point, swap_in
from reconcile.audit import AuditResult
from reconcile.engine.steps.rules import PARTITION_RULES, REPORT_NEEDS, SCOPE_RULES
from reconcile.errors import UsageError
from reconcile.render.findings_json import render_findings_json
from reconcile.render.junit_xml import render_junit_xml
from reconcile.render.summary_md import render_summary_md
from reconcile.render.values import times_as_text

GENERATOR = "reconcile audit"
TABLES = ("watermarks", "frontiers", "frontier_history", "findings")
# Every file a report holds: a folder with anything else in it is not a report.
# The files for machines (docs/outputs.md): every audit writes them.
MACHINE_FILES = ("findings.json", "summary.md", "junit.xml")
REPORT_FILES = frozenset(
    {*(f"{t}.parquet" for t in TABLES), "summary.json", "report.html", *MACHINE_FILES}
)
# the contract tables each rule needs, without which it does not apply (junit.xml):
# alternatives, each a set of tables all present
RULE_NEEDS: dict[str, tuple[tuple[str, ...], ...]] = {
    (name := step.query.removeprefix("audit/")): REPORT_NEEDS.get(name, (step.needs,))
    for step in (*PARTITION_RULES, *SCOPE_RULES)
}
MARKER = "summary.json"


def summary(result: AuditResult, fail_on: str) -> dict[str, Any]:
    """summary.json: counts by rule and severity, the frontiers, the inputs read."""
    counts = result.counts()
    frontiers = [
        {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}
        for row in times_as_text(result.frontiers.drop("vector"), utc="Z").iter_rows(named=True)
    ]
    failing = result.at_or_above(fail_on)
    return {
        "generator": GENERATOR,
        "as_of": (result.as_of_iso or result.as_of.isoformat()) + "Z",
        "inputs": result.inputs,
        "findings": {
            "total": result.findings.height,
            "by_severity": counts["by_severity"],
            "by_rule": counts["by_rule"],
        },
        "frontiers": frontiers,
        # the rules that do not apply to a scope, and why (docs/outputs.md)
        "not_applicable": result.not_applicable.to_dicts(),
        "fail_on": fail_on,
        "failing_findings": failing,
    }


def machine_outputs(result: AuditResult, facts: dict[str, Any]) -> dict[str, str]:
    """findings.json, summary.md and junit.xml of an audit whose summary is ``facts``."""
    scopes = sorted(
        set(result.frontiers["scope_id"].to_list()) | set(result.findings["scope_id"].to_list())
    )
    return {
        "findings.json": render_findings_json(result.findings, facts),
        "summary.md": render_summary_md(result.findings, result.frontiers, facts),
        "junit.xml": render_junit_xml(result.findings, scopes, facts, RULE_NEEDS),
    }


def _why_not_a_report(path: Path) -> str | None:
    """None when ``path`` may be replaced by a report (absent, an empty folder, or a
    report: the report's files alone, with its marker); else why not."""
    if not os.path.lexists(path):
        return None
    if path.is_symlink() and not path.exists():
        return "is a link that leads nowhere"
    if not path.is_dir():
        return "is not a folder"
    try:
        entries = {entry.name for entry in os.scandir(path)}
    except OSError as error:
        return f"cannot be listed ({error.strerror or error})"
    if not entries:
        return None
    others = sorted(entries - REPORT_FILES)
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        return f"holds files a report does not ({shown})"
    try:
        facts = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"has no {MARKER} written by {GENERATOR}"
    if not (isinstance(facts, dict) and facts.get("generator") == GENERATOR):
        return f"has no {MARKER} written by {GENERATOR}"
    return None


def _inside(a: Path, b: Path) -> bool:
    return a == b or a.is_relative_to(b)


def check_target(out: Path, logset: str | Path | None = None) -> None:
    """Refuse an --out that is not a report, or that is inside the log set or holds
    it, before any work is done."""
    target = out.resolve()
    if logset is not None:
        source = Path(logset).resolve()
        if _inside(target, source) or _inside(source, target):
            where = "inside the log set" if _inside(target, source) else "holds the log set"
            raise UsageError(
                f"--out {out} {where} {logset}: a report is written beside a log set,"
                " never into it or over it; choose another --out"
            )
    why = _why_not_a_report(target)
    if why is not None:
        raise UsageError(
            f"{out} exists and is not a reconcile report ({why}): choose another --out"
            " (an existing report there would be replaced; anything else is left alone)"
        )
    if is_mount_point(target):
        raise UsageError(
            f"--out {out} is a mount point: the report replaces its folder in one step,"
            " which cannot be done to a mount point; choose a folder inside it"
        )
    writable_folder(target.parent, f"cannot write {out}")


def writable_folder(folder: Path, what: str) -> None:
    """A UsageError saying ``what`` unless ``folder``, or the first of its parents
    that exists (the rest would be made), is a folder this process may write in."""
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{what}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{what}: {existing} is not writable")


# -- the lock and the leftovers ------------------------------------------------------


@contextlib.contextmanager
def _locked(folder: Path, waiting: Callable[[str], None] | None) -> Iterator[None]:
    """Hold the lock of the folder the report is written in (a lock on the folder
    itself: nothing is left behind), waiting for another writer there."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting(f"waiting for another reconcile audit writing a report in {folder}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def _staging_names(out: Path, kind: str) -> list[Path]:
    prefix = f".{out.name}.{kind}-"
    try:
        return sorted(p for p in out.parent.iterdir() if p.name.startswith(prefix))
    except OSError:
        return []


def _staged(path: Path) -> bool:
    """Whether ``path`` is what a writer of reports stages: a folder (not a link)
    holding nothing but report files, a half-written report included. A folder of
    that name holding anything else is someone else's, and is left alone."""
    if path.is_symlink() or not path.is_dir():
        return False
    try:
        entries = list(os.scandir(path))
    except OSError:
        return False
    return all(e.name in REPORT_FILES and e.is_file(follow_symlinks=False) for e in entries)


def recover(out: Path) -> None:
    """Under the folder's lock: put back an earlier report that a killed writer moved
    aside and never replaced, and remove what killed writers left half-written (only
    report files: a folder of such a name holding anything else is left alone)."""
    for previous in _staging_names(out, "previous"):
        if not os.path.lexists(out) and _why_not_a_report(previous) is None:
            previous.rename(out)
        elif _staged(previous):
            shutil.rmtree(previous, ignore_errors=True)
    for partial in _staging_names(out, "partial"):
        if _staged(partial):
            shutil.rmtree(partial, ignore_errors=True)


def _durable(path: Path) -> None:
    """Flush a written file (or folder entry) to disk before it is moved into place."""
    flags = os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0)
    handle = os.open(path, flags)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def prepare_target(
    out: Path, logset: str | Path | None = None, waiting: Callable[[str], None] | None = None
) -> None:
    """Before an audit: refuse an --out that cannot take the report (:func:`check_target`),
    and recover what a killed writer left there (an earlier report it moved aside is
    put back at once, not only when the next report is written)."""
    check_target(out, logset)
    target = out.resolve()
    if target.parent.is_dir():
        with _locked(target.parent, waiting):
            recover(target)


def write_report(
    out: Path,
    result: AuditResult,
    fail_on: str,
    html: Callable[[AuditResult, dict[str, Any]], str] | None = None,
    *,
    logset: str | Path | None = None,
    waiting: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Write the report into ``out`` atomically (see the module); return the summary
    written. ``logset`` is refused as a place (or a content) of ``out``; ``waiting``
    hears when another writer holds the folder."""
    check_target(out, logset)
    target = out.resolve()  # a link to a report: the report it leads to is replaced
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.parent, waiting):
        recover(target)
        check_target(out, logset)  # another writer may have written there meanwhile
        staging = target.parent / f".{target.name}.partial-{os.getpid()}"
        previous = target.parent / f".{target.name}.previous-{os.getpid()}"
        staging.mkdir()
        try:
            frames: dict[str, pl.DataFrame] = {
                "watermarks": result.watermarks,
                "frontiers": result.frontiers,
                "frontier_history": result.frontier_history,
                "findings": result.findings,
            }
            for name, frame in frames.items():
                frame.write_parquet(staging / f"{name}.parquet")
            facts = summary(result, fail_on)
            if html is not None:
                (staging / "report.html").write_text(html(result, facts), encoding="utf-8")
            for name, text in machine_outputs(result, facts).items():
                (staging / name).write_text(text, encoding="utf-8")
            # the marker last: a folder is a report only once everything is in it
            (staging / MARKER).write_text(
                json.dumps(facts, indent=2, default=str) + "\n", encoding="utf-8"
            )
            for path in (*staging.iterdir(), staging):
                _durable(path)
            try:
                swap_in(staging, target, previous)  # staging: the earlier report, removed below
            except OSError as error:
                if error.errno != errno.EBUSY:
                    raise
                # a mount point check_target could not see (a bind mount on one file system)
                raise UsageError(
                    f"--out {out} is a mount point (the report replaces its folder in one"
                    " step, which cannot be done to a mount point): nothing was written;"
                    " choose a folder inside it"
                ) from error
            _durable(target.parent)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            if os.path.lexists(previous) and not os.path.lexists(target):
                previous.rename(target)
    return facts
