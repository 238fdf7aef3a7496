"""The report's Deliberation section: whether a second round ran and why, who revised, and what it moved.

Shown by ``council ask`` and ``council show`` when the run's council has
``review.rounds: 2`` (the result then has a ``deliberation`` record); runs
without it print nothing here, as before. The plain text is what scripts and
pipes see; :func:`council.cli.rich_report.deliberation_rich` draws the same
cells for a terminal.
"""

from __future__ import annotations

import textwrap

from council.result import DeliberationRecord
from council.text import text_table

MOVE_HEADER = ["member", "revised", "rank before", "rank after", "score before", "score after"]
# The order decisions are listed in: what changed first, then what stood.
_DECISIONS = {"revised": "revised", "kept": "kept", "failed": "revision failed", "blocked": "revision blocked"}
_STATISTICS = {"kendall_w": "Kendall's W", "mean_pairwise_tau": "mean pairwise Kendall tau"}


def _figure(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _rank(value: int | None) -> str:
    return "-" if value is None else str(value)


def heading(record: DeliberationRecord) -> str:
    """``Deliberation: two rounds: <reason>`` or ``Deliberation: one round: <reason>`` (the reason says the count)."""
    return f"Deliberation: {record.reason}"


def decision_lines(record: DeliberationRecord) -> list[str]:
    """One line per decision (revised, kept, failed, blocked), naming each member with its reason."""
    lines = []
    for decision, words in _DECISIONS.items():
        members = [r for r in record.revisions if r.decision == decision]
        if members:
            said = "; ".join(f"{r.member} ({r.reason or (r.error.reason if r.error else 'no reason given')})"
                             for r in members)
            lines.append(f"{words}: {said}")
    return lines


def move_rows(record: DeliberationRecord) -> list[list[str]]:
    """Each answer's rank and score before and after the second round (see :data:`MOVE_HEADER`)."""
    return [[m.member, "yes" if m.revised else "no", _rank(m.rank_before), _rank(m.rank_after),
             _figure(m.score_before), _figure(m.score_after)] for m in record.moves]


def change_lines(record: DeliberationRecord) -> list[str]:
    """Confidence and agreement before -> after, and what the second round took."""
    statistic = _STATISTICS.get(record.agreement_statistic, record.agreement_statistic)
    cost = "cost unknown" if record.cost_usd is None else f"${record.cost_usd:.4f}"
    return [f"confidence in the top answer: {_figure(record.confidence_before)} -> {_figure(record.confidence_after)}",
            f"reviewer agreement ({statistic}): {_figure(record.agreement_before)} -> "
            f"{_figure(record.agreement_after)}",
            f"second round: {record.calls} calls, {record.tokens} tokens, {cost}, {record.latency_ms / 1000:.1f} s"]


def render_deliberation(record: DeliberationRecord) -> str:
    """The plain-text section: one line for one round; for two, decisions, the moves table and the figures."""
    if record.rounds == 1:
        return heading(record) + "\n"
    body = decision_lines(record)
    if record.moves:
        body.append(text_table(MOVE_HEADER, move_rows(record)))
    body += change_lines(record)
    return heading(record) + "\n" + textwrap.indent("\n".join(body), "  ") + "\n"
