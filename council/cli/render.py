"""Plain-text rendering of council results for the terminal."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from datetime import datetime
from typing import TYPE_CHECKING, TextIO

from council.cli.deliberation_report import render_deliberation
from council.events import StageEvent, describe
from council.result import CouncilResult
from council.text import text_table

if TYPE_CHECKING:
    from council.pipeline import DirectCallTotals, RunSummary


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _verdict(verdict: object) -> str:
    if verdict is None:
        return "-"
    return f"{'pass' if verdict.passed else 'FAIL'} {verdict.score * 100:.0f}%"  # type: ignore[attr-defined]


def ranking_rows(result: CouncilResult, dimensions: bool = False) -> tuple[list[str], list[list[str]]]:
    """The ranking's header and rows as text cells, shared by the plain and the rich tables."""
    dims = sorted({d for entry in result.ranking for d in entry.dimensions}) if dimensions else []
    header = ["#", "member", "score", "raw mean", "reviews", "rubric", *dims]
    rows = [[str(e.rank), e.member, _number(e.score), _number(e.raw_mean), str(e.n_reviews),
             _verdict(e.verdict), *(_number(e.dimensions.get(d), 2) for d in dims)] for e in result.ranking]
    return header, rows


def ranking_table(result: CouncilResult, dimensions: bool = False) -> str:
    """The ranking: rank, member, council score, raw mean, reviews (and per-dimension means)."""
    return text_table(*ranking_rows(result, dimensions))


MEMBER_HEADER = ["member", "status", "latency", "tokens", "detail"]


def member_rows(result: CouncilResult) -> list[list[str]]:
    """One row of text cells per member (see :data:`MEMBER_HEADER`), shared by the plain and the rich tables."""
    rows = []
    for answer in result.answers:
        detail = ""
        if answer.error is not None:
            detail = f"{answer.error.reason}: {answer.error.message}"
        elif answer.safety is not None and not answer.safety.passed:
            finding = answer.safety.findings[0]
            detail = f"{finding.category}: {finding.evidence!r}"
        label = answer.member + (" (simulated)" if answer.simulated else "")
        rows.append([label, answer.status, f"{answer.latency_ms:.0f} ms", str(answer.usage.total_tokens), detail])
    return rows


def blocked_reason(result: CouncilResult) -> str:
    """Why a ``blocked`` run has no answer, naming the safety categories: the same words in every output."""
    categories = sorted({f.category for a in result.answers if a.status == "blocked" and a.safety is not None
                         for f in a.safety.findings})
    return "every answer was blocked by the safety gate" + (f" ({', '.join(categories)})" if categories else "")


def members_table(result: CouncilResult) -> str:
    """Each member's Stage 1 status, latency, tokens and failure or safety reason."""
    return text_table(MEMBER_HEADER, member_rows(result))


def confidence_line(result: CouncilResult) -> str | None:
    """How sure the council is of its top answer, in one line (None when nothing was compared)."""
    if result.ranking_confidence is None or not result.ranking:
        return None
    top = result.ranking[0].member
    if result.tied_for_first:
        return (f"no clear winner: {', '.join([top, *result.tied_for_first])} are statistically tied "
                f"({top} came first with {result.ranking_confidence:.2f} confidence)")
    return f"{top} is best with {result.ranking_confidence:.2f} confidence"


def holistic_lines(result: CouncilResult) -> list[str]:
    """A line per review read as holistic (ADR-016's fallback): whose answers, and which criteria it left out."""
    lines = []
    for review in result.reviews:
        if review.holistic:
            left_out = sorted({cid for missing in review.holistic.values() for cid in missing})
            lines.append(f"holistic ballot: {review.reviewer} gave {', '.join(review.holistic)} an overall score "
                         f"without {', '.join(left_out)}; it stands in for them")
    return lines


def position_line(result: CouncilResult) -> str | None:
    """With review.both_orders: whose top pick held in both orders, whose changed with the order, whose is unknown."""
    said: dict[str, list[str]] = {"held": [], "changed": [], "unknown": []}
    for review in result.reviews:
        if review.position_consistency is not None:
            said[review.position_consistency].append(review.reviewer)
    known = len(said["held"]) + len(said["changed"])
    if not known and not said["unknown"]:
        return None
    parts = [f"{what}: {', '.join(names)}" for what, names in (
        ("top pick held in both orders", said["held"]), ("changed with the order", said["changed"]),
        ("unknown, one order's call failed", said["unknown"])) if names]
    count = f" {len(said['held'])} of {known} reviewers kept their top pick;" if known else ""
    return f"position consistency:{count} " + "; ".join(parts)


def agreement_line(result: CouncilResult) -> str:
    """How much the reviewers agreed, in one line."""
    agreement = result.agreement
    if agreement.statistic == "kendall_w" and agreement.kendall_w is not None:
        return f"reviewer agreement: Kendall's W = {agreement.kendall_w:.2f} ({agreement.n_reviewers} reviewers)"
    if agreement.mean_pairwise_tau is not None:
        return f"reviewer agreement: mean pairwise Kendall tau = {agreement.mean_pairwise_tau:.2f}"
    return "reviewer agreement: not enough reviews to measure"


def candidate_blocks(result: CouncilResult) -> list[tuple[str, str]]:
    """A structured run's candidates: a title and the body for each, valid JSON formatted, failed ones with why.

    Empty for a prose run: its answers are the members table's business.
    """
    if result.output_schema is None:
        return []
    blocks = []
    for answer in result.answers:
        if answer.status == "ok" and answer.content is not None:
            blocks.append((f"{answer.member}: valid", _formatted(answer.content)))
        elif answer.error is not None and answer.error.reason in ("invalid_output", "refused"):
            text = (answer.content or "").strip()
            shown = text if len(text) <= 600 else text[:600] + " …"
            blocks.append((f"{answer.member}: {answer.error.reason}: {answer.error.message}", shown or "(no text)"))
    return blocks


def _formatted(text: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2)
    except ValueError:
        return text.strip()


def render_report(result: CouncilResult) -> str:
    """The readable report of ``council ask`` and ``council show``."""
    parts: list[str] = []
    if result.simulated:
        parts.append("[SIMULATED council: answers and reviews are generated offline, not by real models]\n")
    final = result.final_answer
    if result.status == "failed":
        parts.append(f"Run failed: {result.error}\n")
    elif final is not None and final.blocked:
        parts.append(f"No answer: {blocked_reason(result)}.\n")
    elif final is not None:
        source = "chairman" if final.source == "chairman" else "top-ranked answer"
        parts.append(f"Final answer (by {final.by}, {source}):\n\n{final.content.strip()}\n")
        if final.fallback and final.fallback_reason:
            parts.append(f"Chairman fallback: {final.fallback_reason}\n")
    if result.ranking:
        method = result.reproducibility.aggregation_method
        sure = confidence_line(result)
        parts.append(f"Ranking ({method}):\n{ranking_table(result)}\n{agreement_line(result)}\n"
                     + (f"{sure}\n" if sure else ""))
    if result.deliberation is not None:
        parts.append(render_deliberation(result.deliberation))
    for flag in result.bias_flags:
        parts.append(f"bias flag: {flag.reviewer}: {flag.detail}")
    parts += holistic_lines(result)
    if (positions := position_line(result)) is not None:
        parts.append(positions)
    parts.append(f"Members:\n{members_table(result)}\n")
    if blocks := candidate_blocks(result):
        shown = (f"  {title}\n{textwrap.indent(body, '    ')}" for title, body in blocks)
        parts.append("Candidates:\n" + "\n".join(shown) + "\n")
    if result.degraded:
        parts.append("DEGRADED:\n" + "\n".join(f"  - {reason}" for reason in result.degraded_reasons) + "\n")
    usage = result.usage
    judged = f"; {result.judging.describe()}" if result.judging else ""
    preset = f" (preset {result.preset}{judged})" if result.preset else ""
    parts.append(f"run {result.run_id}{preset}: {result.timings.total_ms:.0f} ms, {usage.total_tokens} tokens "
                 f"({usage.prompt_tokens} prompt + {usage.completion_tokens} completion)")
    parts.append(cost_line(result))
    return "\n".join(parts)


def _usd(value: float) -> str:
    # Four decimals read well for a council run; a run on cheap models needs six to show anything.
    return f"${value:.4f}" if value >= 0.01 or value == 0 else f"${value:.6f}"


def cost_line(result: CouncilResult) -> str:
    """What the run cost: the total, per stage and per member; what was unpriced; or that nothing was priced."""
    cost = result.cost
    if cost is None:
        return "cost: not recorded (the run did not finish)"
    if cost.total_usd is None:
        return "cost: unknown (no member has a price; set members[].price in the config)"
    stages = ", ".join(f"{stage} {_usd(usd)}" for stage, usd in cost.by_stage.items())
    members = ", ".join(f"{member} {_usd(usd)}" for member, usd in cost.by_member.items())
    line = f"cost: {_usd(cost.total_usd)} ({stages}; by member: {members})"
    if cost.partial:
        line += f"; partial: no price for {', '.join(cost.unpriced)}"
    return line


def render_compare(result: CouncilResult, width: int | None = None) -> str:
    """The answers side by side (stacked when the terminal is narrow), then per-dimension scores."""
    answers = [a for a in result.answers if a.content is not None]
    width = width or shutil.get_terminal_size((120, 40)).columns
    parts = []
    if result.simulated:
        parts.append("[SIMULATED council]\n")
    if answers:
        column = (width - 3 * (len(answers) - 1)) // len(answers)
        if column >= 28:
            blocks = []
            for answer in answers:
                head = f"{answer.member} [{answer.status}]"
                lines = [head, "-" * min(len(head), column)]
                for paragraph in (answer.content or "").splitlines() or [""]:
                    lines += textwrap.wrap(paragraph, column) or [""]
                blocks.append(lines)
            height = max(len(b) for b in blocks)
            for row in range(height):
                cells = [(b[row] if row < len(b) else "").ljust(column) for b in blocks]
                parts.append(" | ".join(cells).rstrip())
        else:
            for answer in answers:
                parts.append(f"== {answer.member} [{answer.status}] ==\n{textwrap.fill(answer.content or '', width)}\n")
    parts.append("")
    if result.ranking:
        parts.append(f"Scores per dimension (reviewers' means):\n{ranking_table(result, dimensions=True)}")
    parts.append(f"\nMembers:\n{members_table(result)}")
    if result.degraded:
        parts.append("DEGRADED:\n" + "\n".join(f"  - {reason}" for reason in result.degraded_reasons))
    return "\n".join(parts)


def render_runs(runs: list[RunSummary]) -> str:
    """``council runs``: the newest stored runs."""
    if not runs:
        return "no stored runs"
    rows = [[r.run_id, r.created_at[:19].replace("T", " "), r.status + (" (degraded)" if r.degraded else ""),
             r.top_member or "-", _run_cost(r), ("[sim] " if r.simulated else "") + textwrap.shorten(r.question, 50)]
            for r in runs]
    return text_table(["run id", "created (UTC)", "status", "answer by", "cost", "question"], rows)


def _run_cost(run: RunSummary) -> str:
    # "+" marks a lower bound: some of the run's calls had no price.
    if run.cost_usd is None:
        return "-"
    return _usd(run.cost_usd) + ("+" if run.cost_partial else "")


def render_cost_since(since: datetime, usd: float, runs: int, uncertain: int) -> str:
    """``council runs --since``: what the runs of the period cost, and how many of them are not fully priced."""
    period = f"cost since {since:%Y-%m-%d %H:%M} UTC"
    if runs and uncertain == runs and not usd:
        return f"{period}: unknown for all {runs} run{'s' if runs != 1 else ''} (members without a price)"
    line = f"{period}: {_usd(usd)} over {runs} run{'s' if runs != 1 else ''}"
    if uncertain:
        line += f" ({uncertain} with a partial or unknown cost: members without a price)"
    return line


def render_direct_calls_since(totals: DirectCallTotals) -> str:
    """``council runs --since``: the calls made outside runs (``member/NAME``, chat apps' side tasks)."""
    calls = f"{totals.calls} direct call{'s' if totals.calls != 1 else ''} (member/NAME and chat apps' side tasks)"
    if totals.calls and totals.unpriced == totals.calls:
        return f"{calls}: cost unknown (members without a price)"
    line = f"{calls}: {_usd(totals.usd)}"
    if totals.unpriced:
        line += f" ({totals.unpriced} unpriced)"
    return line


class ProgressPrinter:
    """Writes one line per stage event to stderr while a run works."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr

    def __call__(self, event: StageEvent) -> None:
        line = describe(event)
        if line is not None:
            print(line, file=self.stream, flush=True)
