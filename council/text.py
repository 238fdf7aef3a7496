"""Plain-text layout shared by every terminal renderer (council results, evaluation summaries)."""

from __future__ import annotations

import re


def text_table(header: list[str], rows: list[list[str]]) -> str:
    """Rows under a header, columns aligned, with a rule under the header."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * width for width in widths))
    lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
              for row in rows]
    return "\n".join(lines)


# What a terminal acts on rather than shows: C0 and C1 controls, DEL (ESC starts a control sequence, CR and LF
# move the cursor), bidi embeddings, overrides, isolates and marks (they reorder what follows), and the Unicode
# line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str) -> str:
    """``text`` with every character a terminal would act on shown as an escape (``\\x1b``, ``\\n``,
    ``\\u202e``): for names from a file, which must not clear the screen, forge a table line or reverse one."""
    return _UNSAFE.sub(_escape, text)
