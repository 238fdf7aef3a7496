"""The live view of a council run on a terminal, and the one rule for when the CLI draws with rich.

:class:`LiveView` is an event sink, like :class:`~council.cli.render.ProgressPrinter`:
it receives the same :class:`~council.events.StageEvent` stream and redraws one
row per member (waiting, answered, failed, blocked), the reviewers' ballots and
the chairman, in place, on stderr. Scripts never see it: :func:`rich_wanted`
keeps every pipe, ``--json`` and ``--quiet`` on the plain text they had before.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TextIO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from council.cli.rich_report import clean
from council.events import (
    DeliberationData,
    FailureData,
    FinalData,
    RevisionData,
    RunFinishedData,
    StageEvent,
    failure_reason,
)


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal (False for pipes, files, test captures and closed streams)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def rich_wanted(stream: TextIO, *, json: bool = False, quiet: bool = False) -> bool:
    """The one rule for rich output on ``stream``: a terminal, and neither ``--json`` nor ``--quiet`` given.

    Everything else keeps the plain text that scripts parse. NO_COLOR is left to rich, which honours it.
    """
    return not json and not quiet and is_terminal(stream)


def print_error(line: str, stream: TextIO) -> None:
    """An error line on ``stream``: red on a terminal, byte-for-byte the plain line anywhere else."""
    if not is_terminal(stream):
        print(line, file=stream)
        return
    # markup/highlight off: the message quotes user input and upstream text, which may contain "[...]".
    Console(file=stream).print(Text(clean(line), style="red"), markup=False, highlight=False, soft_wrap=True)


@dataclass
class _Row:
    """One line of the view: a name, what it is doing, and whether it is still in progress."""

    name: str
    state: str
    style: str = ""
    pending: bool = True


_MARKS = {"green": "✓", "red": "✗", "yellow": "⊘", "cyan": "="}
# How a member's second-round decision is drawn: its words and its style (cyan: kept, unchanged).
_DECISION_STYLES = {"revised": "green", "kept": "cyan", "failed": "red", "blocked": "yellow"}


class LiveView:
    """An event sink that draws the run in place on a terminal; use it as a context manager around the run.

    Leaving the ``with`` block stops the view, whether the run finished, failed or was interrupted: rows still
    in progress then say so, the last frame stays on screen and the cursor is given back.
    """

    def __init__(self, console: Console | None = None, *, refresh_per_second: float = 10) -> None:
        self.console = console or Console(stderr=True)
        # The refresher thread renders while the event loop updates; one lock keeps each frame consistent.
        self._lock = threading.RLock()
        self._started = time.monotonic()
        self._elapsed: float | None = None
        self._run_id = ""
        self._simulated = False
        self._members: dict[str, _Row] = {}
        self._reviews: dict[str, _Row] = {}
        self._stage = ""
        self._review_stage = False
        self._chairman: _Row | None = None
        # The second round (review.rounds: 2): its reason, each member's decision and the new ballots.
        self._second_reason = ""
        self._revisions: dict[str, _Row] = {}
        self._second_reviews: dict[str, _Row] = {}
        self._second_summary: Text | None = None
        self._outcome: Text | None = None
        self._spinners: dict[str, Spinner] = {}
        # stdout is left alone: the report goes there after the view stops, and a pipe must get it unchanged.
        self._live = Live(console=self.console, get_renderable=self.render, refresh_per_second=refresh_per_second,
                          transient=False, redirect_stdout=False, redirect_stderr=True)

    def __enter__(self) -> LiveView:
        self._live.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is not None:
            interrupted = issubclass(exc_type, (KeyboardInterrupt, asyncio.CancelledError))
            self._stop_pending("interrupted" if interrupted else "stopped")
        self._live.stop()

    def __call__(self, event: StageEvent) -> None:
        """Take one event (the ``on_event`` of :meth:`Council.ask`)."""
        with self._lock:
            self._take(event)
        if event.kind != "final_delta":  # a chairman streams many deltas; the refresher's pace is enough for them
            self._live.refresh()

    def _take(self, event: StageEvent) -> None:
        self._run_id = event.run_id
        if event.kind == "run_started":
            started = event.data
            self._simulated = started["simulated"]
            self._members = {name: _Row(name, "waiting") for name in started["members"]}
            chairman = started["chairman"]
            self._chairman = (_Row(chairman, "waiting") if chairman
                              else _Row("(none)", "the top-ranked answer is the final answer", "dim", False))
        elif event.kind == "answer":
            answer = event.data
            if answer["status"] == "ok":
                row = _Row(answer["member"], f"answered in {answer['latency_ms']:.0f} ms", "green", False)
            else:
                row = _Row(answer["member"], f"failed: {self._reason(answer['error'])}", "red", False)
            self._members[answer["member"]] = row
        elif event.kind == "safety" and not event.data["passed"]:
            safety = event.data
            category = safety["findings"][0]["category"] if safety["findings"] else "unsafe"
            # In the second round the gate checks revised texts: a blocked one leaves the first answer standing.
            if self._stage == "deliberation":
                self._revisions[safety["member"]] = _Row(
                    safety["member"], f"revision blocked by safety ({category}); its first answer stands", "yellow",
                    False)
            else:
                self._members[safety["member"]] = _Row(safety["member"], f"blocked by safety ({category})",
                                                       "yellow", False)
        elif event.kind == "stage_started":
            self._stage = event.data["stage"]
            if self._stage == "deliberation":
                self._second_reason = clean(event.data.get("reason", ""))
                self._revisions = {name: _Row(name, "reading the critiques") for name, row in self._members.items()
                                   if row.style == "green"}
            self._review_stage = self._review_stage or self._stage == "review"
            if event.data["stage"] == "final" and self._chairman is not None and self._chairman.pending:
                self._chairman.state = "writing"
        elif event.kind == "revision":
            self._revisions[event.data["member"]] = self._revision_row(event.data)
        elif event.kind == "deliberation":
            self._second_summary = self._deliberation_line(event.data)
        elif event.kind == "review":
            review = event.data
            ballots = self._second_reviews if review.get("round", 1) > 1 else self._reviews
            holistic = review.get("holistic") or {}
            said = f"reviewed {len(review['order'])} answers" + (f" ({len(holistic)} holistically)" if holistic else "")
            ballots[review["reviewer"]] = (
                _Row(review["reviewer"], said, "green", False)
                if review["status"] == "ok"
                else _Row(review["reviewer"], f"failed: {self._reason(review['error'])}", "red", False))
        elif event.kind == "final_delta" and self._chairman is not None and self._chairman.pending:
            self._chairman.state = "writing"
        elif event.kind == "final":
            self._chairman = self._final_row(event.data)
        elif event.kind == "run_finished":
            self._finish(event.data)

    @staticmethod
    def _revision_row(revision: RevisionData) -> _Row:
        decision = revision["decision"]
        said = clean(revision["reason"]) if revision["reason"] else ""
        if decision == "failed":
            said = f"{LiveView._reason(revision['error'])}; its first answer stands"
        words = {"revised": "revised", "kept": "kept", "failed": "revision failed"}.get(decision, decision)
        return _Row(revision["member"], f"{words}: {said}" if said else words,
                    _DECISION_STYLES.get(decision, ""), False)

    @staticmethod
    def _deliberation_line(rounds: DeliberationData) -> Text:
        if rounds["rounds"] == 1:
            return Text(f"Deliberation: {clean(rounds['reason'])}", style="dim")
        before, after = rounds["confidence_before"], rounds["confidence_after"]
        confidence = (f"confidence {before:.2f} → {after:.2f}" if before is not None and after is not None
                      else "confidence not measured")
        revised = ", ".join(rounds["revised"]) or "nobody"
        return Text(f"revised: {clean(revised)} · {confidence} · {rounds['calls']} calls, {rounds['tokens']} tokens, "
                    f"{rounds['latency_ms'] / 1000:.1f} s", style="dim")

    @staticmethod
    def _reason(error: FailureData | None) -> str:
        return clean(failure_reason(error))

    def _final_row(self, final: FinalData) -> _Row:
        name = self._chairman.name if self._chairman is not None else clean(final["by"])
        if final["blocked"]:
            return _Row(name, "no final answer: every answer was blocked", "yellow", False)
        if final["fallback"]:
            return _Row(name, f"fell back to {final['by']}'s answer ({final['fallback_reason']})", "yellow", False)
        if final["source"] == "chairman":
            return _Row(name, f"done in {final['latency_ms']:.0f} ms", "green", False)
        return _Row(name, f"final answer: {final['by']}'s top-ranked answer", "green", False)

    def _finish(self, finished: RunFinishedData) -> None:
        self._elapsed = time.monotonic() - self._started
        if finished["status"] == "blocked":
            # Not a crash and not an answer: the run went through, and the gate withheld what it produced.
            self._outcome = Text("run blocked: every answer was blocked by the safety gate", style="bold yellow")
        elif finished["status"] == "complete":
            words = "run complete" + (" (degraded)" if finished["degraded"] else "")
            self._outcome = Text(words, style="yellow" if finished["degraded"] else "green")
        else:
            error = f": {clean(finished['error'])}" if finished["error"] else ""
            self._outcome = Text(f"run {finished['status']}{error}", style="bold red")
        # A cancelled run still reports run_finished; its unfinished rows were cut short, not skipped.
        self._stop_pending("interrupted" if finished["status"] == "interrupted" else "not reached")

    def _stop_pending(self, why: str) -> None:
        with self._lock:
            if self._elapsed is None:
                self._elapsed = time.monotonic() - self._started
            for row in [*self._members.values(), *self._reviews.values(), *self._revisions.values(),
                        *self._second_reviews.values(), self._chairman]:
                if row is not None and row.pending:
                    row.state, row.style, row.pending = why, "dim", False
            if self._outcome is None:
                self._outcome = Text(f"run {why}", style="bold red")

    def render(self) -> RenderableType:
        """The current frame (called by the refresher, and once more when the view stops)."""
        with self._lock:
            elapsed = self._elapsed if self._elapsed is not None else time.monotonic() - self._started
            title = Text.assemble(("Council run", "bold"), f" {self._run_id[:12]}" if self._run_id else "",
                                  (" · simulated" if self._simulated else "", "yellow"), f" · {elapsed:.1f} s")
            parts: list[RenderableType] = [title, self._section("Members", "member", self._members.values())]
            if self._review_stage or self._reviews:
                ballots = sum(row.style == "green" for row in self._reviews.values())
                heading = f"Reviews · {ballots} ballot{'s' if ballots != 1 else ''} in"
                waiting = self._stage == "review" and self._elapsed is None
                parts.append(self._section(heading, "review", self._reviews.values(), waiting=waiting))
            parts += self._second_round()
            if self._chairman is not None:
                parts.append(self._section("Chairman", "chairman", [self._chairman]))
            if self._outcome is not None:
                parts.append(self._outcome)
            return Group(*parts)

    def _second_round(self) -> list[RenderableType]:
        """The second round as its own sections; for a run that needed one round, the line saying why."""
        if not self._second_reason:
            return [self._second_summary] if self._second_summary is not None else []
        # Headings on their own lines, not table titles: a title wraps at the table's width, and a reason is long.
        parts: list[RenderableType] = [Text(f"Second round · {self._second_reason}", style="bold"),
                                       self._section("", "revision", self._revisions.values())]
        revising = any(row.pending for row in self._revisions.values())
        if self._second_reviews or not (self._stage == "deliberation" and revising):
            ballots = sum(row.style == "green" for row in self._second_reviews.values())
            waiting = self._stage == "deliberation" and self._elapsed is None
            parts += [Text(f"Second-round reviews · {ballots} ballot{'s' if ballots != 1 else ''} in", style="bold"),
                      self._section("", "review2", self._second_reviews.values(), waiting=waiting)]
        if self._second_summary is not None:
            parts.append(self._second_summary)
        return parts

    def _section(self, heading: str, key: str, rows: Any, waiting: bool = False) -> Table:
        grid = Table.grid(padding=(0, 1))
        grid.title, grid.title_justify, grid.title_style = heading, "left", "bold"
        grid.add_column(width=2)
        grid.add_column(min_width=10)
        grid.add_column()
        for row in rows:
            grid.add_row(self._mark(f"{key}:{row.name}", row), Text(clean(row.name)), Text(row.state, style=row.style))
        if waiting:
            grid.add_row(self._spinner(f"{key}:*"), Text("…", style="dim"), Text("waiting for ballots", style="dim"))
        return grid

    def _mark(self, key: str, row: _Row) -> RenderableType:
        if row.pending:
            return self._spinner(key)
        return Text(_MARKS.get(row.style, "·"), style=row.style or "dim")

    def _spinner(self, key: str) -> Spinner:
        # One Spinner per row: a spinner's frame comes from its own start time, so a new one would never turn.
        return self._spinners.setdefault(key, Spinner("dots", style="cyan"))
