"""docs/cli.md, written from the command line's own parser: every command, its
arguments and options with their help and defaults, and the exit statuses. A test
holds docs/cli.md equal to it; after changing an option, write it again with

    uv run python -m reconcile.render.cli_doc > docs/cli.md
"""

from __future__ import annotations

import argparse

from reconcile.cli import build_parser
from reconcile.exits import EXIT_STATUSES

HEAD = """# Command line

Every command of `reconcile`, with every argument and option, written from the
command's own parser (`reconcile/render/cli_doc.py`; regenerate with
`uv run python -m reconcile.render.cli_doc > docs/cli.md`). `reconcile COMMAND --help`
says the same. The contract's part of it is [`contract.md`](contract.md) §7; what an
audit writes is in [`outputs.md`](outputs.md).
"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _name(action: argparse.Action) -> str:
    if action.option_strings:
        names = ", ".join(f"`{o}`" for o in action.option_strings)
        if action.nargs == 0:
            return names
        metavar = action.metavar or (
            "{" + ",".join(map(str, action.choices)) + "}"
            if action.choices
            else action.dest.upper()
        )
        return f"{names} `{metavar}`".replace("|", "\\|")
    return f"`{action.metavar or action.dest}`"


def _help(action: argparse.Action) -> str:
    text = (action.help or "").replace("%(default)s", str(action.default)).replace("%%", "%")
    if action.choices and action.option_strings and action.metavar:
        text += " (one of: " + ", ".join(f"`{c}`" for c in action.choices) + ")"
    return " ".join(text.split()).replace("|", "\\|")


def _section(path: str, parser: argparse.ArgumentParser) -> list[str]:
    lines = [f"## `{path}`", "", " ".join((parser.description or "").split()), ""]
    rows = [
        a
        for a in parser._actions
        if a.help is not argparse.SUPPRESS
        and not isinstance(a, (argparse._SubParsersAction, argparse._HelpAction))
    ]
    if rows:
        lines += ["| argument | meaning |", "|---|---|"]
        lines += [f"| {_name(a)} | {_help(a)} |" for a in rows]
        lines.append("")
    for name, sub in _subparsers(parser).items():
        lines += _section(f"{path} {name}", sub)
    return lines


def render_cli_doc() -> str:
    parser = build_parser()
    lines = [HEAD, *_section("reconcile", parser)]
    lines += ["## Exit status", "", "```", EXIT_STATUSES, "```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(render_cli_doc(), end="")
