"""The ``council ask`` / ``compare`` report drawn with rich, for a person at a terminal.

The plain renderers in :mod:`council.cli.render` stay the contract for
scripts (pipes, ``--json``, ``--quiet``); this module only draws the same
facts more readably, reusing their cells so both always agree on the numbers.
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from council.cli.deliberation_report import MOVE_HEADER, change_lines, decision_lines, heading, move_rows
from council.cli.render import (
    MEMBER_HEADER,
    agreement_line,
    blocked_reason,
    candidate_blocks,
    confidence_line,
    cost_line,
    holistic_lines,
    member_rows,
    position_line,
    ranking_rows,
)
from council.result import CouncilResult, DeliberationRecord

# Model output is untrusted: raw escape sequences in it could move the cursor or retitle the terminal.
# Newlines and tabs are layout, everything else below 0x20 (and DEL, C1) is dropped.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_STATUS_STYLE = {"ok": "green", "failed": "red", "blocked": "yellow"}


def clean(text: str) -> str:
    """``text`` without terminal control characters (newlines and tabs kept)."""
    return _CONTROL.sub("", text)


def _titled_table(title: str) -> Table:
    return Table(title=title, title_justify="left", title_style="bold", header_style="bold")


def ranking_rich_table(result: CouncilResult) -> Table:
    """The ranking as a rich Table; the rubric verdict is green when it passes, red when not."""
    header, rows = ranking_rows(result)
    table = _titled_table(f"Ranking ({result.reproducibility.aggregation_method})")
    for name in header:
        table.add_column(name, justify="left" if name in ("member", "rubric") else "right")
    rubric = header.index("rubric")
    for cells, entry in zip(rows, result.ranking, strict=True):
        # Text cells, never markup strings: a member name could contain "[...]".
        texts = [Text(clean(cell)) for cell in cells]
        if entry.verdict is not None:
            texts[rubric].stylize("green" if entry.verdict.passed else "red")
        table.add_row(*texts)
    return table


def dimensions_rich_table(result: CouncilResult) -> Table:
    """The reviewers' mean per rubric dimension, one row per ranked member.

    A table of its own, not columns added to the ranking: eleven columns do not fit a terminal unabridged.
    """
    header, rows = ranking_rows(result, dimensions=True)
    keep = [header.index("member"), *range(header.index("rubric") + 1, len(header))]
    table = _titled_table("Scores per dimension (reviewers' means)")
    for index in keep:
        table.add_column(header[index], justify="left" if header[index] == "member" else "right")
    for cells in rows:
        table.add_row(*(Text(clean(cells[index])) for index in keep))
    return table


def members_rich_table(result: CouncilResult) -> Table:
    """Each member's status (coloured), latency, tokens and failure or safety reason."""
    table = _titled_table("Members")
    for name in MEMBER_HEADER:
        table.add_column(name, justify="right" if name in ("latency", "tokens") else "left",
                         overflow="fold")
    for label, status, latency, tokens, detail in member_rows(result):
        table.add_row(Text(clean(label)), Text(status, style=_STATUS_STYLE.get(status, "")), Text(latency),
                      Text(tokens), Text(clean(detail), style="dim"))
    return table


def deliberation_rich(record: DeliberationRecord) -> RenderableType:
    """The Deliberation section for a terminal: the plain section's cells, the moves as a table, revised in green."""
    title = Text(clean(heading(record)), style="bold")
    if record.rounds == 1:
        return title
    parts: list[RenderableType] = [title]
    parts += [Text(clean(line), style="green" if line.startswith("revised:") else "")
              for line in decision_lines(record)]
    if record.moves:
        table = _titled_table("Ranking before -> after the second round")
        for name in MOVE_HEADER:
            table.add_column(name, justify="left" if name in ("member", "revised") else "right")
        for cells, move in zip(move_rows(record), record.moves, strict=True):
            table.add_row(*(Text(clean(cell), style="green" if move.revised else "") for cell in cells))
        parts.append(table)
    parts += [Text(line, style="dim") for line in change_lines(record)]
    return Group(*parts)


def _banner(result: CouncilResult, short: bool = False) -> list[RenderableType]:
    if not result.simulated:
        return []
    words = "SIMULATED council" if short else \
        "SIMULATED council: answers and reviews are generated offline, not by real models"
    return [Text(f"[{words}]", style="bold yellow")]


def _degraded(result: CouncilResult) -> list[RenderableType]:
    if not result.degraded:
        return []
    text = Text("DEGRADED", style="bold yellow")
    for reason in result.degraded_reasons:
        text.append(f"\n  - {clean(reason)}", style="yellow")
    return [text]


def render_rich_report(result: CouncilResult) -> RenderableType:
    """``council ask``'s report: the final answer as Markdown, the ranking and members as tables."""
    parts = _banner(result)
    final = result.final_answer
    if result.status == "failed":
        parts.append(Text(f"Run failed: {clean(str(result.error))}", style="bold red"))
    elif final is not None and final.blocked:
        parts.append(Text(f"No answer: {blocked_reason(result)}.", style="bold yellow"))
    elif final is not None:
        source = "chairman" if final.source == "chairman" else "top-ranked answer"
        parts.append(Panel(Markdown(clean(final.content.strip())), title=f"Final answer (by {clean(final.by)}, "
                           f"{source})", title_align="left", border_style="cyan", padding=(1, 2)))
        if final.fallback and final.fallback_reason:
            parts.append(Text(f"Chairman fallback: {clean(final.fallback_reason)}", style="yellow"))
    if result.ranking:
        parts += [ranking_rich_table(result), Text(agreement_line(result), style="dim")]
        if (sure := confidence_line(result)) is not None:
            parts.append(Text(sure, style="yellow" if result.tied_for_first else "green"))
    if result.deliberation is not None:
        parts.append(deliberation_rich(result.deliberation))
    parts += [Text(f"bias flag: {clean(f.reviewer)}: {clean(f.detail)}", style="yellow") for f in result.bias_flags]
    parts += [Text(clean(line), style="yellow") for line in holistic_lines(result)]
    if (positions := position_line(result)) is not None:
        parts.append(Text(clean(positions), style="dim"))
    parts.append(members_rich_table(result))
    for title, body in candidate_blocks(result):
        valid = title.endswith(": valid")
        parts.append(Panel(Syntax(body, "json", word_wrap=True) if valid else Text(clean(body)), title=clean(title),
                           title_align="left", border_style="green" if valid else "red"))
    parts += _degraded(result)
    usage = result.usage
    judged = f"; {result.judging.describe()}" if result.judging else ""
    preset = f" (preset {result.preset}{judged})" if result.preset else ""
    parts.append(Text(f"run {result.run_id}{preset}: {result.timings.total_ms:.0f} ms, {usage.total_tokens} tokens "
                      f"({usage.prompt_tokens} prompt + {usage.completion_tokens} completion)", style="dim"))
    parts.append(Text(cost_line(result), style="dim"))
    return Group(*_spaced(parts))


def render_rich_compare(result: CouncilResult) -> RenderableType:
    """``council compare``: the answers side by side (rich wraps and stacks them), then the scores."""
    parts = _banner(result, short=True)
    answers = [a for a in result.answers if a.content is not None]
    if answers:
        grid = Table(show_header=True, header_style="bold", expand=True, show_lines=False)
        for answer in answers:
            grid.add_column(Text(f"{clean(answer.member)} [{answer.status}]",
                                 style=_STATUS_STYLE.get(answer.status, "")), ratio=1, overflow="fold")
        grid.add_row(*(Markdown(clean(a.content or "")) for a in answers))
        parts.append(grid)
    if result.ranking:
        parts += [ranking_rich_table(result), dimensions_rich_table(result)]
    parts.append(members_rich_table(result))
    parts += _degraded(result)
    return Group(*_spaced(parts))


def _spaced(parts: list[RenderableType]) -> list[RenderableType]:
    # A blank line between blocks, as the plain report has, so the tables do not run together.
    spaced: list[RenderableType] = []
    for part in parts:
        if spaced:
            spaced.append(Text(""))
        spaced.append(part)
    return spaced
