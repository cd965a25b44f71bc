import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import polars as pl

    import reconcile
    from reconcile import investigate, plots
    from reconcile.audit import audit

    return audit, investigate, mo, pl, plots, reconcile


@app.cell
def _(mo):
    mo.md(
        r"""
        # Audit a past run

        A backfill finished (log set `data/faults`). Before signing it off: what went
        wrong, how badly, where on the timeline, and was anything actually lost, or
        only delivered twice?
        """
    )
    return


@app.cell
def _(audit, mo, reconcile):
    logset = reconcile.open_logset(mo.notebook_dir().parent / "data" / "faults")
    result = audit(logset)
    result.counts()["by_severity"]
    return (result,)


@app.cell
def _(plots, result):
    by_rule = plots.findings_by_rule(result.findings)
    plots.save(by_rule, "audit-by-rule")
    by_rule
    return


@app.cell
def _(mo):
    mo.md(
        r"""
        ## Each finding, with its evidence and the frontier when it happened

        `claimed_frontier` is the merged claimed frontier at the finding's instant.
        `proven_frontier` is the proven one where it was evaluated at that instant (a
        row of the frontier history, or T): the proven frontier also moves between
        those instants as receipts arrive, unrecorded. Null: a vector, `+inf`, or not
        evaluated at that instant.
        """
    )
    return


@app.cell
def _(investigate, pl, result):
    placed = investigate.findings_on_timeline(
        result.findings, result.frontier_history, result.frontiers
    )
    placed.filter(pl.col("severity") != "info").select(
        "severity",
        "rule",
        "partition_id",
        "at",
        "message",
        "evidence",
        "claimed_frontier",
        "proven_frontier",
    )
    return


@app.cell
def _(plots, result):
    marked = plots.frontier_timeline(
        result.frontier_history,
        "s0",
        result.as_of,
        steps=result.timelines,
        findings=result.findings,
        title="s0: frontiers, shown partitions, findings",
        frontiers=result.frontiers,
    )
    plots.save(marked, "audit-timeline")
    marked
    return


@app.cell
def _(mo):
    mo.md(
        r"""
        ## What was skipped, and what was only replayed

        `skipped_event` means an eligible event has no durable outcome although a
        claim covers it: data is missing. `replayed_events` only counts events
        delivered more than once, which at-least-once delivery allows.
        """
    )
    return


@app.cell
def _(investigate, result):
    lost = investigate.skipped_versus_replayed(result.findings)
    lost
    return (lost,)


@app.cell
def _(lost, mo, pl, result):
    skipped = lost.filter(pl.col("skipped") > 0)
    critical = result.counts()["by_severity"]["critical"]
    mo.md(
        f"""
        ## Answer

        Do not sign it off: {critical} critical finding(s). Data was lost in
        {skipped.height} partition(s) ({", ".join(skipped["partition_id"].to_list())}):
        {int(skipped["skipped"].sum())} event(s) lie under claims with no durable
        outcome. In {lost.filter(pl.col("replayed") > 0).height} partition(s) events were
        only replayed, which is expected. The overclaims, regressions, broken
        compare-and-swap chains and publication errors above each name the write or
        publication to look at.
        """
    )
    return


if __name__ == "__main__":
    app.run()
