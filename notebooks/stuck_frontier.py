import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import polars as pl

    import reconcile
    from reconcile import investigate, plots

    return investigate, mo, pl, plots, reconcile


@app.cell
def _(mo):
    mo.md(
        r"""
        # Why is the frontier stuck?

        The combined stream of scope `s0` (log set `data/stuck`) stopped advancing.
        Which partition holds it back, since when, and why: is its consumer behind,
        or is something in it unproven?
        """
    )
    return


@app.cell
def _(mo, reconcile):
    logset = reconcile.open_logset(mo.notebook_dir().parent / "data" / "stuck")
    analysis = reconcile.Analysis(logset)
    marks = analysis.watermarks()
    fronts = analysis.frontiers()
    history = analysis.frontier_history()
    fronts.select("basis", "kind", "frontier", "frontier_inclusive", "limiting_partitions")
    return analysis, fronts, history, marks


@app.cell
def _(mo):
    mo.md(
        r"""
        ## Who holds the frontier, and since when

        The claimed frontier (what checkpoints say) and the proven one (what the
        evidence shows) are held by the partitions below, most often first (each
        stay counted once, over every instant the frontier is evaluated at).
        """
    )
    return


@app.cell
def _(analysis, investigate, pl):
    held = pl.concat(
        [
            investigate.holders(analysis, basis).with_columns(pl.lit(basis).alias("basis"))
            for basis in ("claimed", "proven")
        ]
    )
    held
    return


@app.cell
def _(fronts, pl):
    proven_now = fronts.filter(pl.col("basis") == "proven").row(0, named=True)
    claimed_now = fronts.filter(pl.col("basis") == "claimed").row(0, named=True)
    stuck_on = proven_now["limiting_partitions"][0]
    return claimed_now, proven_now, stuck_on


@app.cell
def _(marks, pl, stuck_on):
    blocked = marks.filter(pl.col("partition_id") == stuck_on).row(0, named=True)
    marks.filter(pl.col("partition_id") == stuck_on).select(
        "partition_id",
        "committed_position",
        "blocking_event_id",
        "blocking_position",
        "blocking_reason",
        "proven_through",
        "claimed_through",
        "claim_status",
    )
    return (blocked,)


@app.cell
def _(blocked, mo):
    mo.md(
        f"""
        ## The blocking event

        The proven frontier stops in `{blocked["partition_id"]}` just before position
        `{blocked["blocking_position"]}` (proven through `{blocked["proven_through"]}`):
        event `{blocked["blocking_event_id"]}` is `{blocked["blocking_reason"]}`.
        Everything before it is durable (the committed watermark is
        `{blocked["committed_position"]}`), yet the partition's checkpoint claims
        `{blocked["claimed_through"]}` ({blocked["claim_status"]}). Its receipts and
        pages, across attempts:
        """
    )
    return


@app.cell
def _(analysis, blocked, investigate):
    trail = investigate.event_trail(
        analysis, blocked["scope_id"], blocked["partition_id"], blocked["blocking_event_id"]
    )
    trail
    return (trail,)


@app.cell
def _(analysis, blocked, investigate, pl, trail):
    pages = investigate.partition_pages(analysis, blocked["scope_id"], blocked["partition_id"])
    pages.filter(pl.col("page_id").is_in(trail["page_id"].implode()))
    return


@app.cell
def _(mo):
    mo.md(
        r"""
        ## Claimed against proven

        Each partition's claim beside what its evidence proves: a claim beyond the
        proof is an overclaim; a partition whose claim stops early holds the claimed
        frontier.
        """
    )
    return


@app.cell
def _(investigate, marks, plots):
    lag_fig = plots.partition_lag(marks)
    plots.save(lag_fig, "stuck-lag")
    investigate.lag(marks)
    return (lag_fig,)


@app.cell
def _(lag_fig):
    lag_fig
    return


@app.cell
def _(analysis, history, investigate, plots):
    shown = (
        investigate.holders(analysis, "claimed")
        .head(2)
        .vstack(investigate.holders(analysis, "proven").head(2))
        .select("scope_id", "partition_id")
        .unique()
    )
    steps = analysis.history(shown)
    timeline = plots.frontier_timeline(
        history,
        "s0",
        analysis.as_of,
        steps=steps,
        title="s0: frontiers and the partitions that hold them",
        frontiers=analysis.frontiers(),
    )
    plots.save(timeline, "stuck-timeline")
    timeline
    return


@app.cell
def _(analysis, investigate):
    hold = investigate.longest_hold(analysis, basis="claimed")
    hold
    return (hold,)


@app.cell
def _(blocked, claimed_now, hold, mo, proven_now):
    mo.md(
        f"""
        ## Answer

        Two things, of different kinds. For **{hold["minutes"]} minutes** (from
        {hold["since"]} to {hold["until"]}) `{hold["partition_id"]}` held the claimed
        frontier still at `{hold["frontier"]}`: its worker went quiet
        while every other partition went on; it caught up later, and today the claimed
        frontier reads `{claimed_now["frontier"]}`. The proven frontier, though, is
        still stuck at `{proven_now["frontier"]}` in `{blocked["partition_id"]}`: event
        `{blocked["blocking_event_id"]}` is {blocked["blocking_reason"]}, with no durable
        receipt: whatever was handled after it, the partition is proven only up to it,
        while the checkpoints there claim `{blocked["claimed_through"]}`.
        That one is lost data, not lag: replay it from the anchor before trusting the
        claimed frontier.
        """
    )
    return


if __name__ == "__main__":
    app.run()
