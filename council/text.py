"""Plain-text layout shared by every terminal renderer (council results, evaluation summaries)."""

from __future__ import annotations


def text_table(header: list[str], rows: list[list[str]]) -> str:
    """Rows under a header, columns aligned, with a rule under the header."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * width for width in widths))
    lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
              for row in rows]
    return "\n".join(lines)
