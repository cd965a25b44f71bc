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
        # A membership change

        At epoch 2 partition `p0001` of scope `s0` split in two: it retired, and
        `p0001.a` and `p0001.b` joined. What did the frontier do at the cutover, which
        proofs made the change safe, and what happens when one is missing? Two log
        sets of the same run: `data/membership`, and `data/membership-unproven` where
        the first child joins without a coverage proof.
        """
    )
    return


@app.cell
def _(mo, reconcile):
    root = mo.notebook_dir().parent / "data"
    proven_run = reconcile.Analysis(reconcile.open_logset(root / "membership"))
    unproven_run = reconcile.Analysis(reconcile.open_logset(root / "membership-unproven"))
    return proven_run, unproven_run


@app.cell
def _(investigate, proven_run):
    changes = investigate.membership(proven_run)
    changes
    return (changes,)


@app.cell
def _(changes, mo):
    cut = changes.row(0, named=True)
    mo.md(
        f"""
        ## The proofs

        The cutover of epoch {cut["epoch"]} is `{cut["cutover"]}`, effective
        {cut["effective_at"]}. Each change above has its proof in the epoch shown in
        `proved_in`: the retiring partition is sealed at or above the cutover, and each
        joining partition's coverage starts no later than the cutover's successor, so
        nothing falls between the old and the new members.
        """
    )
    return (cut,)


@app.cell
def _(cut, pl, proven_run):
    history = proven_run.frontier_history()
    around = history.filter(
        (pl.col("at") - pl.lit(cut["effective_at"])).abs() < pl.duration(seconds=1)
    )
    around.select("basis", "at", "epoch", "kind", "frontier", "limiting_partitions")
    return (history,)


@app.cell
def _(history, plots, proven_run):
    before_after = plots.frontier_timeline(
        history,
        "s0",
        proven_run.as_of,
        title="s0 with proofs: the frontier across the cutover",
        frontiers=proven_run.frontiers(),
    )
    plots.save(before_after, "membership-proven")
    before_after
    return


@app.cell
def _(mo):
    mo.md(
        r"""
        ## When a proof is missing

        Same run, but `p0001.a` joins without a coverage proof. Epoch 2 is then
        unproven: the frontier must stay a vector, since a scalar would claim the
        events between the cutover and wherever `p0001.a` really starts.
        """
    )
    return


@app.cell
def _(investigate, unproven_run):
    investigate.membership(unproven_run)
    return


@app.cell
def _(unproven_run):
    unproven_now = unproven_run.frontiers()
    unproven_now.select("basis", "epoch", "kind", "reasons", "members")
    return (unproven_now,)


@app.cell
def _(plots, unproven_now, unproven_run):
    unproven_history = unproven_run.frontier_history()
    without = plots.frontier_timeline(
        unproven_history,
        "s0",
        unproven_run.as_of,
        title="s0 without a coverage proof: no scalar after the cutover",
        frontiers=unproven_now,
    )
    plots.save(without, "membership-unproven")
    without
    return


@app.cell
def _(mo, pl, proven_run, unproven_now):
    with_proof = proven_run.frontiers().filter(pl.col("basis") == "proven").row(0, named=True)
    without_proof = unproven_now.filter(pl.col("basis") == "proven").row(0, named=True)
    mo.md(
        f"""
        ## Answer

        With its proofs, the change keeps an honest scalar: once every member of
        epoch 2 holds a certificate (just after the cutover the frontier is a vector,
        `no_certificate`: the grey band), the proven frontier at T is
        `{with_proof["frontier"]}` over {with_proof["members"]} members.
        Without the coverage proof of one joining partition, epoch 2 stays a
        **{without_proof["kind"]}** ({", ".join(without_proof["reasons"])}) and the
        audit reports `unproven_membership` for it: a missing proof withholds the
        frontier rather than letting it claim a gap.
        """
    )
    return


if __name__ == "__main__":
    app.run()
