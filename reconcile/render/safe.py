"""What reaches a terminal carries no control character of the input's (issue 19).

Identifiers, file names and messages come from the log set; an ESC, BEL or CR among
them would reach the terminal raw and could redraw what it shows (a fake
"findings: 0" line). Every text the command line prints goes through
:func:`for_terminal`, which writes each such character as a visible escape
(``\\x1b``); line breaks and tabs of the reconciler's own layout are kept, and
those inside a value of the input's (an identifier, a file name, a message that
quotes one) are escaped where the value is placed, by :func:`inline`. JSON
output is escaped by the JSON writer (every non-ASCII character and every C0
control as ``\\uXXXX``); :func:`for_json` adds DEL, the one ASCII control it leaves.
"""

from __future__ import annotations

import html
import re

# C0 controls but tab and newline, DEL, C1 controls, the Unicode marks that reorder
# or hide text (bidirectional embeddings, overrides and isolates), and surrogates
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    # the bytes of a file name that is not UTF-8, as Python holds them
    "\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str) -> str:
    """``text`` with every control character of the input shown as an escape."""
    return _CONTROL.sub(_escape, text)


# line breaks and tabs: what would start a new line, or move along one
BREAKS = "\t\n\r\v\f\x85\u2028\u2029"
_BREAKS = re.compile(f"[{BREAKS}]")


def inline(value: object) -> str:
    """A value of the input's as one line of text: its line breaks and tabs shown as
    escapes (``\\x0a``), so that it cannot start a line of its own."""
    return _BREAKS.sub(_escape, str(value))


def for_json(text: str) -> str:
    """JSON text (written with ASCII escapes) with DEL escaped too: still the same
    JSON, and nothing a terminal acts on."""
    return text.replace("\x7f", "\\u007f")


def html_text(value: object) -> str:
    """A value as HTML text (None as nothing): escaped, and a file name that is not
    UTF-8 (held as surrogates, which no HTML file can hold) with its bytes escaped."""
    text = "" if value is None else str(value)
    return html.escape(text.encode("utf-8", "backslashreplace").decode("utf-8"))
