"""The report directory never destroys or strands data (issue 19, part 4).

A reader of DIR sees it absent (before the first report) or a complete report; an
--out inside the log set, around it, or holding anything but a report is refused
before any work; writers of one folder are serialized; what a killed writer left
is recovered by the next run; ``simulate --force`` and ``--profile`` replace only
what they wrote; SIGTERM and SIGHUP clean up as Ctrl-C does.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reconcile import atomic
from reconcile.audit.report import REPORT_FILES
from reconcile.cli import EXIT_INVALID, main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def audit_of(path: Path) -> dict[str, object]:
    return json.loads((path / "summary.json").read_text())


# -- refused before any work ---------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "option", "where"),
    [
        ("audit", "--profile", "logs/snapshot.parquet"),
        ("audit", "--profile", "report/profile.json"),
        ("audit", "--temp-dir", "logs"),
        ("audit", "--temp-dir", "logs/spill"),
        ("audit", "--temp-dir", "report"),
        ("validate", "--temp-dir", "logs/spill"),
        ("watermarks", "RECONCILE_TEMP_DIR", "logs"),
    ],
)
def test_nothing_is_written_into_the_log_set_or_the_report_folder(
    command: str,
    option: str,
    where: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A --profile or a spill folder inside the log set broke it (a profile written
    over snapshot.parquet), or left spill folders in a report, which later audits
    refused as not a report."""
    logs = tmp_path / "logs"
    shutil.copytree(DATA / "clean", logs)
    before = tree(tmp_path)
    args = [command, str(logs)]
    if command == "audit":
        args += ["--out", str(tmp_path / "report")]
    if option.startswith("--"):
        args += [option, str(tmp_path / where)]
    else:
        monkeypatch.setenv(option, str(tmp_path / where))
    code, text, err = run(capsys, *args)
    assert code == EXIT_INVALID
    assert text == ""
    assert f"{option} {tmp_path / where} is inside" in err
    assert tree(tmp_path) == before


@pytest.mark.parametrize("where", ["around", "inside", "same"])
def test_an_out_inside_or_around_the_log_set_is_refused(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reconcile audit rep/logs --out rep`` deleted the log set."""
    logs = tmp_path / "rep" / "logs"
    shutil.copytree(DATA / "clean", logs)
    before = tree(tmp_path)
    out = {"around": tmp_path / "rep", "inside": logs / "report", "same": logs}[where]
    code, text, err = run(capsys, "audit", str(logs), "--out", str(out))
    assert code == EXIT_INVALID
    assert text == ""
    assert "never into it or over it" in err
    assert tree(tmp_path) == before


def test_a_forged_marker_does_not_make_a_folder_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({"generator": "reconcile audit"}))
    (folder / "thesis.tex").write_text("years of work")
    code, _, err = run(capsys, "audit", str(DATA / "clean"), "--out", str(folder))
    assert code == EXIT_INVALID
    assert "holds files a report does not (thesis.tex)" in err
    assert (folder / "thesis.tex").read_text() == "years of work"


def test_an_out_that_cannot_be_written_fails_before_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the audit ran")

    monkeypatch.setattr("reconcile.commands.audit", never)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, _, err = run(capsys, "audit", str(DATA / "clean"), "--out", str(blocker / "r"))
    assert code == EXIT_INVALID
    assert "is not a folder" in err
    code, _, err = run(
        capsys,
        "audit",
        str(DATA / "clean"),
        "--out",
        str(tmp_path / "r"),
        "--profile",
        str(blocker / "p.json"),
    )
    assert code == EXIT_INVALID
    assert "--profile" in err


def test_an_out_that_is_a_mount_point_fails_before_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename cannot replace a mount point: refused before the audit, not after it."""

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the audit ran")

    monkeypatch.setattr("reconcile.commands.audit", never)
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    real = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda p: os.fspath(p) == str(mounted) or real(p))
    code, _, err = run(capsys, "audit", str(DATA / "clean"), "--out", str(mounted))
    assert code == EXIT_INVALID
    assert "is a mount point" in err and "choose a folder inside it" in err
    code, _, err = run(capsys, "simulate", str(mounted), "--force")  # an empty folder
    assert code == EXIT_INVALID
    assert "is a mount point" in err
    assert list(mounted.iterdir()) == []


@pytest.mark.slow
def test_a_mount_point_seen_only_at_the_rename_is_refused_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bind mount on the folder's own file system looks like a folder until the
    rename fails with EBUSY: a usage error, the earlier report kept, no traceback."""
    out = tmp_path / "report"
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    before = tree(out)

    def busy(new: Path, target: Path, aside: Path) -> None:
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(target))

    monkeypatch.setattr("reconcile.audit.report.swap_in", busy)
    code, _, err = run(capsys, "audit", str(DATA / "faults"), "--out", str(out))
    assert code == EXIT_INVALID
    assert "is a mount point" in err and "nothing was written" in err
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


@pytest.mark.slow
def test_a_replaced_report_keeps_its_folders_permissions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    out.mkdir(mode=0o750)
    out.chmod(0o750)  # whatever the umask
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    assert out.stat().st_mode & 0o7777 == 0o750
    out.chmod(0o705)
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    assert out.stat().st_mode & 0o7777 == 0o705


@pytest.mark.slow
def test_profile_replaces_only_a_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "notes.json"
    precious.write_text('{"mine": true}')
    code, _, err = run(
        capsys,
        "audit",
        str(DATA / "clean"),
        "--out",
        str(tmp_path / "r"),
        "--profile",
        str(precious),
    )
    assert code == EXIT_INVALID
    assert "not a profile written by reconcile" in err
    assert precious.read_text() == '{"mine": true}'
    assert not (tmp_path / "r").exists()
    profile = tmp_path / "profile.json"
    for _ in range(2):  # written, then replaced: it is one of ours
        args = ["audit", str(DATA / "clean"), "--out", str(tmp_path / "r"), "--profile"]
        assert run(capsys, *args, str(profile))[0] == 0
        assert json.loads(profile.read_text())["generator"] == "reconcile audit --profile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.json", "profile.json", "r"]


def test_simulate_force_replaces_only_a_simulated_log_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "logs"
    precious.mkdir()
    (precious / "checkpoints.parquet").write_bytes(b"my own")
    (precious / "notes.txt").write_text("keep")
    args = ["simulate", str(precious), "--partitions", "2", "--events", "400", "--force"]
    code, _, err = run(capsys, *args)
    assert code == EXIT_INVALID
    assert "not a log set written by reconcile simulate" in err
    assert tree(precious) == {"checkpoints.parquet": b"my own", "notes.txt": b"keep"}
    fresh = tmp_path / "sim"
    args = ["simulate", str(fresh), "--partitions", "2", "--events", "400"]
    assert run(capsys, *args)[0] == 0
    assert run(capsys, *args, "--force", "--seed", "7")[0] == 0  # its own: replaced
    assert json.loads((fresh / "truth.json").read_text())["options"]["seed"] == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "sim"]


# -- replaced with no window ---------------------------------------------------------


@pytest.mark.slow
def test_a_report_is_replaced_in_one_exchange(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The new report takes DIR's place in one step: a file of the earlier report
    held open reads on; no moment without DIR (no rename of DIR away)."""
    out = tmp_path / "report"
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    with (out / "summary.json").open() as held:
        assert run(capsys, "audit", str(DATA / "faults"), "--out", str(out))[0] == 1
        assert json.loads(held.read())["findings"]["total"] == 0  # the earlier report
    assert audit_of(out)["findings"]["total"] == 28  # type: ignore[index]
    assert {p.name for p in out.iterdir()} == REPORT_FILES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


@pytest.mark.slow
def test_where_names_cannot_be_exchanged_a_killed_writer_is_recovered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback of two renames: a writer killed between them leaves the earlier
    report aside and a partial folder; the next run, even one that fails on its
    input, puts the earlier report back and removes the partial one."""
    out = tmp_path / "report"
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    before = tree(out)
    # what a kill between the two renames leaves
    out.rename(tmp_path / ".report.previous-99999")
    (tmp_path / ".report.partial-99999").mkdir()
    (tmp_path / ".report.partial-99999" / "findings.parquet").write_bytes(b"half")
    bad = tmp_path / "bad"
    bad.mkdir()
    code, _, _ = run(capsys, "audit", str(bad), "--out", str(out))
    assert code == EXIT_INVALID
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "report"]
    monkeypatch.setattr(atomic, "exchange", lambda a, b: False)
    assert run(capsys, "audit", str(DATA / "faults"), "--out", str(out))[0] == 1
    assert audit_of(out)["findings"]["total"] == 28  # type: ignore[index]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "report"]


def test_recovery_leaves_alone_what_a_writer_did_not_stage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Folders named as a writer's leftovers (``.DIR.previous-N``, ``.DIR.partial-N``)
    that hold anything but report files are someone else's: never removed."""
    out = tmp_path / "report"
    mine = {".report.previous-99999": "thesis.txt", ".report.partial-99998": "notes.txt"}
    for folder, name in mine.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text("precious")
    (tmp_path / ".report.partial-99997").mkdir()  # a writer's, half-written: swept
    (tmp_path / ".report.partial-99997" / "findings.parquet").write_bytes(b"half")
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    for folder, name in mine.items():
        assert (tmp_path / folder / name).read_text() == "precious"
    assert not (tmp_path / ".report.partial-99997").exists()


@pytest.mark.slow
def test_an_out_that_is_a_link_keeps_leading_to_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "reports" / "latest"
    link = tmp_path / "report"
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(real))[0] == 0
    link.symlink_to(real)
    assert run(capsys, "audit", str(DATA / "faults"), "--out", str(link))[0] == 1
    assert link.is_symlink() and link.resolve() == real
    assert audit_of(link)["findings"]["total"] == 28  # type: ignore[index]
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["latest"]


@pytest.mark.slow
def test_two_audits_writing_one_out_at_once_both_finish(tmp_path: Path) -> None:
    out = tmp_path / "report"
    command = [sys.executable, "-m", "reconcile", "audit"]
    runs = [
        subprocess.Popen(
            [*command, str(DATA / name), "--out", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for name in ("faults", "faults", "clean")
    ]
    results = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in runs]
    assert [code for code, _ in results] == [1, 1, 0], results
    assert all("Traceback" not in err for _, err in results)
    assert {p.name for p in out.iterdir()} == REPORT_FILES
    assert audit_of(out)["generator"] == "reconcile audit"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


# -- signals and kills ---------------------------------------------------------------


# The command line, with SIGHUP as from a terminal: a runner started under nohup (or
# as a background job of a shell without job control) would hand it SIGHUP ignored.
AS_FROM_A_TERMINAL = (
    "import signal, sys; signal.signal(signal.SIGHUP, signal.SIG_DFL);"
    " from reconcile.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _start_audit(tmp_path: Path, out: Path) -> tuple[subprocess.Popen[str], Path]:
    """An audit in a process of its own, once its engine (and so its handlers) exist."""
    spill = tmp_path / "tmp"
    spill.mkdir(exist_ok=True)
    command = ["audit", str(DATA / "faults"), "--out", str(out)]
    process = subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_TERMINAL, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(spill)},
    )
    deadline = time.monotonic() + 60
    while not list(spill.glob(f"reconcile-spill-{process.pid}-*")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return process, spill


@pytest.mark.slow
@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_clean_up_and_say_so(
    sent: signal.Signals, status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert run(capsys, "audit", str(DATA / "clean"), "--out", str(out))[0] == 0
    before = tree(out)
    process, spill = _start_audit(tmp_path, out)
    process.send_signal(sent)
    _, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert err.strip().splitlines()[-1] == f"reconcile: terminated by {sent.name}"
    assert "Traceback" not in err
    assert list(spill.iterdir()) == []
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "tmp"]


@pytest.mark.slow
def test_what_a_killed_audit_leaves_is_swept_by_the_next_run(tmp_path: Path) -> None:
    process, spill = _start_audit(tmp_path, tmp_path / "report")
    process.kill()
    process.communicate(timeout=60)
    assert list(spill.glob(f"reconcile-spill-{process.pid}-*"))  # left behind
    subprocess.run(
        [sys.executable, "-m", "reconcile", "validate", str(DATA / "clean")],
        check=True,
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(spill)},
    )
    assert list(spill.iterdir()) == []
