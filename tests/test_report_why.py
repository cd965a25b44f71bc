"""report.html says why each frontier is where it is (issue 21): who holds it, since
when, what blocks the holder, the claim against the proof; why a vector is one."""

from __future__ import annotations

import html
import itertools
import math
import re
from pathlib import Path

import polars as pl
import pytest

from reconcile.catalog import ACTIONS
from reconcile.cli import main
from reconcile.render.html import _ticks

DATA = Path(__file__).resolve().parents[1] / "data"


def _panel(tmp_path: Path, name: str) -> str:
    out = tmp_path / name
    main(["audit", str(DATA / name), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    panel = page.split("<h2>Why is the frontier here?</h2>", 1)[1].split("<h2>", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", panel))


def test_stuck_names_the_holder_its_blocking_event_and_where_to_replay(tmp_path: Path) -> None:
    text = _panel(tmp_path, "stuck")
    assert "Proven: complete through ≤ 10,377 in epoch 1" in text
    assert "held by p0002." in text
    assert (
        "p0002: committed through 10,377 (event e0001948); blocked by event e0001949 at"
        " position 10,378: its event failed" in text
    )
    assert "claimed ≤ 20,001 against proven ≤ 10,377 (claim: overclaim)" in text
    # the blocking event's receipts, by a plain reading of the receipts
    got = pl.read_parquet(DATA / "stuck" / "receipts.parquet").filter(
        (pl.col("partition_id") == "p0002") & (pl.col("event_id") == "e0001949")
    )
    assert got.height == 1
    first = got.row(0, named=True)
    assert (
        f"its receipts (1): {first['outcome']} at"
        f" {first['recorded_at'].strftime('%Y-%m-%d %H:%M:%S.%f')} in attempt"
        f" {first['attempt_id']} on page {first['page_id']};" in text
    )
    # the anchor, by a plain reading of the checkpoints: p0002's latest won write
    # (by written_at, generation, attempt) with a token and a claim below 10,378
    writes = pl.read_parquet(DATA / "stuck" / "checkpoints.parquet").filter(
        (pl.col("partition_id") == "p0002")
        & (pl.col("cas_result") == "won")
        & pl.col("resume_token").is_not_null()
        & (
            (pl.col("watermark") < 10_378)
            | ((pl.col("watermark") == 10_378) & ~pl.col("watermark_inclusive"))
        )
    )
    latest = writes.sort("written_at", "generation", "attempt_id").row(-1, named=True)
    assert (
        f"replay from resume token {latest['resume_token']} (the latest won checkpoint below"
        f" the blocking point: generation {latest['generation']} of attempt"
        f" {latest['attempt_id']}, claiming through {latest['watermark']:,}; a later"
        " checkpoint's token, such as one a finding's evidence names, resumes past the"
        " blocking event)" in text
    )
    assert re.search(r"at this value since 2026-01-01 \d\d:\d\d:\d\d", text)


def test_faults_says_why_the_frontier_is_a_vector(tmp_path: Path) -> None:
    text = _panel(tmp_path, "faults")
    assert "Proven: no single value (a vector) in epoch 2" in text
    assert "a membership change of the epoch still lacks its proof" in text


def test_a_vector_names_its_lowest_members_and_what_blocks_them(tmp_path: Path) -> None:
    """The members' certificates, lowest first, read back from frontiers.parquet, and
    the lowest member explained as a scalar's holder is."""
    text = _panel(tmp_path, "faults")
    proven = pl.read_parquet(tmp_path / "faults" / "frontiers.parquet").filter(
        pl.col("basis") == "proven"
    )
    members = [m for m in proven["vector"][0] if m["through"] is not None]
    members.sort(key=lambda m: (m["through"], 0 if m["inclusive"] is False else 1))
    lowest = members[0]
    sign = "≤" if lowest["inclusive"] else "<"
    assert (
        f"The members' certificates, lowest first: {lowest['partition_id']}"
        f" {sign} {lowest['through']:,};" in text
    )
    mark = pl.read_parquet(tmp_path / "faults" / "watermarks.parquet").filter(
        pl.col("partition_id") == lowest["partition_id"]
    )
    event = mark["blocking_event_id"][0]
    assert event is not None
    assert f"{lowest['partition_id']}: " in text
    assert f"blocked by event {event} at position" in text


@pytest.mark.slow  # a whole audit and its outputs read (2 s): outside the fast tier
def test_holders_beyond_those_explained_are_counted(tmp_path: Path) -> None:
    """clean: four partitions hold the frontier, three are explained; the fourth is
    said to be there, not dropped silently."""
    text = _panel(tmp_path, "clean")
    assert "held by p0000, p0001, p0002, p0003." in text
    assert "1 more holds it at the same value" in text


@pytest.mark.slow
def test_many_limiting_partitions_are_capped(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    main(["simulate", str(logs), "--partitions", "40", "--events", "8000"])
    out = tmp_path / "report"
    main(["audit", str(logs), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    # two bases, each in the panel, the frontier table and the last mark's tooltip
    assert page.count("+35 more") == 6
    for held in re.findall(r"held by ([^.\n]*)", re.sub(r"<[^>]+>", "", page)):
        assert held.count(",") <= 4, held


def test_a_holder_limited_by_the_source_says_so() -> None:
    from reconcile.render.why import _partition  # noqa: PLC0415

    row = {
        "partition_id": "p1",
        "committed_position": 50,
        "committed_event_id": "e50",
        "blocking_reason": None,
        "blocking_event_id": None,
        "blocking_position": None,
        "consumer_through": None,
        "provider_through": 20,
        "provider_inclusive": True,
        "claimed_through": 60,
        "claimed_inclusive": True,
        "proven_through": 20,
        "proven_inclusive": True,
        "claim_status": "overclaim",
    }
    text = _partition(row, None)
    # receipts +inf (null): nothing known is missing, and the source bounds the proof
    assert (
        "no known event after that lacks a durable outcome, and the source certifies"
        " completeness (page finality or snapshot bound) up to ≤ 20: the proof reaches"
        " that far, no further" in text
    )
    # receipts finite and above the source's certificate: the source stops the proof
    above = _partition({**row, "consumer_through": 40, "consumer_inclusive": True}, None)
    assert (
        "the receipts prove it through ≤ 40, but the source certifies completeness (page"
        " finality or snapshot bound) only up to ≤ 20, so the proof stops there" in above
    )
    assert "no provider certificate" in _partition({**row, "provider_through": None}, None)
    assert "the source certifies" not in _partition({**row, "consumer_through": 10}, None)
    assert "only through" not in text


def test_an_audit_in_pieces_does_not_say_no_token_exists() -> None:
    from reconcile.render.why import _partition  # noqa: PLC0415

    row = {
        "partition_id": "p1",
        "committed_position": 5,
        "committed_event_id": "e5",
        "blocking_reason": "failed",
        "blocking_event_id": "e6",
        "blocking_position": 6,
        "consumer_through": 6,
        "provider_through": 100,
        "provider_inclusive": True,
        "claimed_through": 5,
        "claimed_inclusive": True,
        "proven_through": 6,
        "proven_inclusive": False,
        "claim_status": "ok",
    }
    assert (
        "replay it from the partition's start: no won checkpoint below position 6 names a"
        " resume token" in _partition(row, None, True)
    )
    pieces = _partition(row, None, False)
    assert "did not look the tokens up" in pieces and "no won checkpoint" not in pieces


def test_an_audit_in_pieces_says_so_in_the_panel(tmp_path: Path) -> None:
    """The panel of an audit run in pieces (Spark: no anchors, no receipts looked up)
    says it did not look, never that there is no token or no receipt."""
    import dataclasses  # noqa: PLC0415

    from reconcile import open_logset  # noqa: PLC0415
    from reconcile.audit import audit  # noqa: PLC0415
    from reconcile.render.why import why_panel  # noqa: PLC0415

    with open_logset(DATA / "stuck") as logset:
        result = audit(logset)
    pieces = dataclasses.replace(result, anchors=pl.DataFrame(), blocking_receipts=pl.DataFrame())
    text = re.sub(r"<[^>]+>", "", why_panel(pieces, "s0"))
    assert "did not look the tokens up" in text
    assert "its receipts were not looked up" in text
    assert "no won checkpoint below it" not in text and "no receipt counted" not in text
    whole = re.sub(r"<[^>]+>", "", why_panel(result, "s0"))
    assert "replay from resume token" in whole and "its receipts (1)" in whole


def test_a_blocking_event_s_receipts_are_capped_and_counted() -> None:
    from datetime import datetime  # noqa: PLC0415

    from reconcile.render.why import _receipts  # noqa: PLC0415

    row = {"blocking_position": 6}
    shown = [
        {
            "outcome": "failed",
            "recorded_at": datetime(2026, 1, 1, 0, 0, i),
            "attempt_id": f"a{i}",
            "page_id": None if i else "g0",
            "position": 6 if i < 4 else 7,
        }
        for i in range(5)
    ]
    text = _receipts(row, {"receipt_count": 1_207, "first_receipts": shown}, True)
    assert text.startswith("its receipts (1,207): failed at 2026-01-01 00:00:00 in attempt a0")
    assert "in attempt a0 on page g0, failed at" in text
    assert "in attempt a1, failed" in text  # no page: none said
    assert "in attempt a4 at position 7" in text  # another position than the block's
    assert text.endswith(", +1,202 more (receipts)")
    assert _receipts(row, None, True) == "it has no receipt counted at T"
    # an event not attempted is said to have no receipt once, not twice
    assert _receipts({**row, "blocking_reason": "not_attempted"}, None, True) == ""


@pytest.mark.slow  # a whole audit and its outputs read (2 s): outside the fast tier
def test_values_above_the_chart_s_scale_are_said_to_be_off_it(tmp_path: Path) -> None:
    """faults: p0011's token read as a watermark (120,022) lies far above the rest; the
    chart's scale stops below it and says so, naming the partitions drawn on its edge."""
    out = tmp_path / "faults"
    main(["audit", str(DATA / "faults"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    note = re.search(r'class="offscale"[^>]*>([^<]*)<', page)
    assert note is not None
    # the highest value drawn: the highest claim of a won write
    won = pl.read_parquet(DATA / "faults" / "checkpoints.parquet").filter(
        pl.col("cas_result") == "won"
    )
    highest = won["watermark"].max()
    assert note.group(1).endswith(f"up to {highest:,}")
    assert "off scale, drawn on this edge:" in note.group(1)


def test_a_time_frontier_is_shown_whole(tmp_path: Path) -> None:
    """timestamps: a frontier at 00:00:20.001 on a dense time domain is not shown as
    00:00:20, which would be another value."""
    out = tmp_path / "timestamps"
    main(["audit", str(DATA / "timestamps"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    frontiers = pl.read_parquet(out / "frontiers.parquet")
    value = frontiers["frontier"].drop_nulls()[0]
    assert value.microsecond
    assert value.strftime("%Y-%m-%d %H:%M:%S.%f") in page
    assert f"≤ {value.strftime('%Y-%m-%d %H:%M:%S')}<" not in page


@pytest.mark.parametrize(
    ("lo", "hi"), [(2, 9), (0, 20_001), (5, 5), (-(2**62), 2**62), (0, 6_417), (9_999, 10_001)]
)
def test_gridlines_lie_at_the_values_they_are_labelled_with(lo: int, hi: int) -> None:
    """A gridline labelled 4 lies at 4 (the example's chart put "4" at 3.75): whole
    numbers within the range, a round step apart."""
    ticks = _ticks(lo, hi)
    assert ticks
    assert all(lo <= t <= hi and t == round(t) for t in ticks)
    steps = {b - a for a, b in itertools.pairwise(ticks)}
    assert len(steps) <= 1
    for step in steps:
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 9) in (1, 2, 5)


def test_each_rule_found_says_what_to_do_in_the_report(tmp_path: Path) -> None:
    """report.html travels without docs/: each rule found carries its remedy."""
    out = tmp_path / "faults"
    main(["audit", str(DATA / "faults"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    rules = set(pl.read_parquet(out / "findings.parquet")["rule"].to_list())
    for rule in rules:
        item = re.search(rf'<li id="rule-{rule}">(.*?)</li>', page, re.S)
        assert item is not None, rule
        text = re.sub(r"<[^>]+>", "", item.group(1))
        assert "What to do. " + html.unescape(ACTIONS[rule].replace("`", "")) in html.unescape(
            text
        ), rule


def test_every_partition_with_a_finding_is_drawn_or_named(tmp_path: Path) -> None:
    """faults: more partitions have findings than the chart draws; each one is in the
    legend or named as not drawn, never left out silently."""
    out = tmp_path / "faults"
    main(["audit", str(DATA / "faults"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    legend = page.split('<div class="legend">', 1)[1].split("</div>", 1)[0]
    drawn = set(re.findall(r"</i>([^<]+)</span>", legend))
    note = re.search(r'class="undrawn">not drawn, though they have findings: ([^(<]*)', legend)
    assert note is not None
    named = {n.strip() for n in note.group(1).split(",")}
    found = pl.read_parquet(out / "findings.parquet").filter(pl.col("at").is_not_null())
    with_findings = set(found["partition_id"].drop_nulls().to_list())
    assert with_findings - drawn == named


def test_a_frontier_reads_the_same_in_every_output_for_people(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """stuck: the proven frontier, 10,377 inclusive, is written alike in the terminal
    (ASCII signs), summary.md and report.html: grouped by thousands, one sign."""
    out = tmp_path / "stuck"
    main(["audit", str(DATA / "stuck"), "--out", str(out)])
    terminal = capsys.readouterr().out
    frontiers = pl.read_parquet(out / "frontiers.parquet")
    proven = frontiers.filter(pl.col("basis") == "proven").row(0, named=True)
    assert (proven["frontier"], proven["frontier_inclusive"]) == (10_377, True)
    assert "<= 10,377 (held by p0002)" in terminal
    assert "| ≤ 10,377 |" in (out / "summary.md").read_text(encoding="utf-8")
    page = html.unescape(re.sub(r"<[^>]+>", "", (out / "report.html").read_text(encoding="utf-8")))
    assert "complete through ≤ 10,377 in epoch 1" in page


@pytest.mark.slow  # a whole report written and read (2 s): outside the fast tier
def test_where_a_frontier_is_a_vector_the_chart_says_so(tmp_path: Path) -> None:
    """faults: the frontiers are vectors at T, so their lines stop; the chart says
    from when, per basis, and the frontiers and partitions are drawn in colours the
    findings' marks do not use."""
    from reconcile.render.html import COLORS, SEVERITY_COLORS  # noqa: PLC0415

    out = tmp_path / "faults"
    main(["audit", str(DATA / "faults"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    notes = re.findall(r'class="vector-note">([^<]*)<', page)
    history = pl.read_parquet(out / "frontier_history.parquet").sort("at")
    for basis in ("proven", "claimed"):
        rows = history.filter(pl.col("basis") == basis)
        assert rows["kind"][-1] == "vector"
        # the last stretch: from the last change into a vector, on to T
        kinds = rows["kind"].to_list()
        last = max(
            i for i, k in enumerate(kinds) if k == "vector" and (i == 0 or kinds[i - 1] != "vector")
        )
        began = rows["at"][last].strftime("%Y-%m-%d %H:%M:%S.%f")
        note = next(n for n in notes if n.startswith(f"no {basis} line"))
        assert f"from {began} on: the {basis} frontier is a vector there" in html.unescape(note)
    assert not set(COLORS) & set(SEVERITY_COLORS.values())
    assert re.search(r'<polyline [^>]*stroke-dasharray="7,4" class="frontier-claimed"', page)
    # stuck: scalar at T, so every stretch it was a vector ends ("to"), none runs on
    stuck = tmp_path / "stuck"
    main(["audit", str(DATA / "stuck"), "--out", str(stuck)])
    notes = re.findall(r'class="vector-note">([^<]*)<', (stuck / "report.html").read_text("utf-8"))
    assert notes and all(" on:" not in n and " to " in n for n in notes)


def test_a_scalar_says_why_it_is_one_value(tmp_path: Path) -> None:
    text = _panel(tmp_path, "stuck")
    members = pl.read_parquet(DATA / "stuck" / "checkpoints.parquet")["partition_id"].n_unique()
    assert (
        f"One value, because each of the epoch's {members} member(s) has a certificate on"
        " this basis, with a known endpoint, in the scope's ordering, and the epoch's"
        " membership is proven" in text
    )


@pytest.mark.slow  # a whole report written and read (2 s): outside the fast tier
def test_past_stalls_and_lags_are_marked_on_the_chart(tmp_path: Path) -> None:
    """stuck: p0001 stalled 30 minutes (its stalled_partition finding) and, at T,
    the claimed frontier stands above the proven one: a band and a strip say so."""
    out = tmp_path / "stuck"
    main(["audit", str(DATA / "stuck"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    stall = pl.read_parquet(out / "findings.parquet").filter(pl.col("rule") == "stalled_partition")
    assert stall.height == 1
    row = stall.row(0, named=True)
    bands = re.findall(r'<rect class="stall"[^>]*><title>([^<]*)</title>', page)
    assert len(bands) == 1
    assert html.unescape(bands[0]).startswith(
        f"{row['partition_id']} stalled 30.0 min, from {row['at'].strftime('%Y-%m-%d %H:%M:%S.%f')}"
    )
    assert re.search(r'class="stall-label"[^>]*>p0001 stalled 30.0 min<', page)
    # the lag strip runs on to T: there claimed (≤ 20,001) is above proven (≤ 10,377)
    fronts = pl.read_parquet(out / "frontiers.parquet")
    by_basis = {r["basis"]: r["frontier"] for r in fronts.iter_rows(named=True)}
    assert by_basis["claimed"] > by_basis["proven"]
    lags = re.findall(r'<rect class="lag"[^>]*><title>([^<]*)</title>', page)
    assert lags and html.unescape(lags[-1]).endswith(" on")
    note = re.search(r'class="lag-note">(?:<i[^>]*></i>)?([^<]*)<', page)
    assert note is not None and "the claimed frontier stood above the proven one" in note[1]
    # example has neither: no band, no strip, no note
    example = tmp_path / "example"
    main(["audit", str(DATA / "example"), "--out", str(example)])
    plain = (example / "report.html").read_text(encoding="utf-8")
    assert 'class="stall"' not in plain and 'class="stall-note"' not in plain


@pytest.mark.slow  # a whole report written and read (2 s): outside the fast tier
def test_a_mapped_log_set_s_report_uses_the_user_s_names(tmp_path: Path) -> None:
    """foreign: findings' keys in the user's words (its mapping reads attempt_id
    from 'run'), and a table of the mapping's renames."""
    out = tmp_path / "foreign"
    main(["audit", str(DATA / "foreign"), "--mapping", "auto", "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    assert re.search(r'<span class="kv" title="attempt_id">run p\d+-', page)
    assert 'title="attempt_id">attempt_id' not in page
    names = page.split('<details class="names">', 1)[1].split("</details>", 1)[0]
    cells = [html.unescape(c) for c in re.findall(r"<td>(?:<code>)?([^<]*)", names)]
    triples = set(zip(cells[0::3], cells[1::3], cells[2::3], strict=True))
    assert ("checkpoints", "partition_id", "shard") in triples
    assert ("checkpoints", "written_at", "ts_ms (epoch_ms)") in triples
    # the contract's own layout: no such table, the contract's names
    example = tmp_path / "example"
    main(["audit", str(DATA / "example"), "--out", str(example)])
    plain = (example / "report.html").read_text(encoding="utf-8")
    assert '<details class="names">' not in plain


def test_a_vector_from_unproven_membership_names_the_partition(tmp_path: Path) -> None:
    """membership-unproven: the panel names the partition whose change lacks proof,
    as its unproven_membership finding does."""
    text = _panel(tmp_path, "membership-unproven")
    found = pl.read_parquet(tmp_path / "membership-unproven" / "findings.parquet").filter(
        pl.col("rule") == "unproven_membership"
    )
    names = sorted(set(found["partition_id"].to_list()))
    assert names
    assert f"Lacking its proof: {', '.join(names)}." in text


@pytest.mark.slow  # a whole report written and read (2 s): outside the fast tier
def test_the_chart_says_how_many_partitions_it_draws(tmp_path: Path) -> None:
    out = tmp_path / "faults"
    main(["audit", str(DATA / "faults"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    every = pl.read_parquet(out / "watermarks.parquet")["partition_id"].n_unique()
    drawn = len(set(re.findall(r'<span><i style="background:#[0-9a-f]+"></i>([^<]+)</span>', page)))
    assert 0 < drawn < every
    assert f'<span class="drawn-count">{drawn} of {every} partitions drawn' in page
    # all drawn: nothing said
    small = tmp_path / "stuck"
    main(["audit", str(DATA / "stuck"), "--out", str(small)])
    assert "drawn-count" not in (small / "report.html").read_text(encoding="utf-8")


def test_the_time_axis_is_labelled_across_its_width_and_marks_do_not_stack(
    tmp_path: Path,
) -> None:
    """faults: activity in the first seconds, then a 30-minute gap to T. Labels spread
    over the whole axis (no wide unlabelled stretch), every finding's mark has its own
    pixel column, and the legend says why no strip is drawn where it is a vector."""
    from reconcile.render.html import LEFT, TICK_SPACING, WIDTH  # noqa: PLC0415

    out = tmp_path / "faults"
    main(["audit", str(DATA / "faults"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    svg = re.search(r"<svg.*?</svg>", page, re.S)
    assert svg is not None
    ticks = sorted(
        float(x)
        for x, label in re.findall(
            r'<text x="([\d.]+)" y="\d+" text-anchor="middle">(\d\d:\d\d:[\d.]+)<', svg[0]
        )
    )
    assert ticks[0] == pytest.approx(LEFT, abs=1)
    breaks = [float(x) for x in re.findall(r'<line class="axis-break" x1="([\d.]+)"', svg[0])]
    for a, b in itertools.pairwise(ticks):
        # a wide gap between labels only where a break (and its label) stands
        assert b - a <= 2 * TICK_SPACING or any(a < k < b for k in breaks), (a, b)
    assert ticks[-1] <= WIDTH
    xs = re.findall(r'class="finding-mark" data-finding="\d+" x1="([\d.]+)"', svg[0])
    assert len(xs) > 1 and len(set(xs)) == len(xs)
    note = re.search(r'class="lag-note">(?:<i[^>]*></i>)?([^<]*)<', page)
    assert note is not None and "none where a frontier is a vector" in note[1]


def test_a_frontier_that_rose_after_the_last_instant_is_not_dated_by_it(tmp_path: Path) -> None:
    """At T = 00:00:02.5 data/stuck's proven frontier is 4,573; the history's last row
    (00:00:02.453807, the last won write) holds 4,459. The panel said "at this value
    since 00:00:02.453807" and the chart ended at 4,459: neither the table's value
    nor when it came. Now it is dated after that row, and marked at T on the chart."""
    out = tmp_path / "r"
    main(["audit", str(DATA / "stuck"), "--out", str(out), "--as-of", "2026-01-01T00:00:02.5"])
    page = (out / "report.html").read_text(encoding="utf-8")
    fronts = pl.read_parquet(out / "frontiers.parquet").filter(pl.col("basis") == "proven")
    history = pl.read_parquet(out / "frontier_history.parquet").filter(pl.col("basis") == "proven")
    assert fronts["frontier"][0] == 4573 and history.sort("at")["frontier"][-1] == 4459
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))
    assert "≤ 4,573 in epoch 1, at this value (reached after 2026-01-01 00:00:02.453807" in text
    assert "at this value since 2026-01-01 00:00:02.453807" not in text
    assert 'class="at-t-proven"><title>proven frontier at T: ≤ 4,573' in page
    # where the last row holds the value at T: the claimed frontier is dated by it
    # (claims change only at won writes); the proven one is said to hold it then too,
    # not since (it moves between the history's instants as receipts arrive), and its
    # line ends there, with its value at T marked
    out = tmp_path / "end"
    main(["audit", str(DATA / "stuck"), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))
    assert "at-t-claimed" not in page and "at this value since" in text
    assert "at this value (as at 2026-01-01" in text
    assert re.search(r'class="at-t-proven"><title>proven frontier at T: [^<]*, as at the', page)
