"""Stage events of the web page's runs: kept in memory while fresh, replayed to anyone who asks.

A :class:`LiveRun` holds every event of one run in order; a subscriber
reads what is there, then waits for more, so a page that reloads mid-run
sees the whole run so far and then the rest live. Only the most recent
finished runs stay in memory: after that the stored result
(:mod:`council.storage.store`) is the record, and :func:`replay_events` rebuilds the
same event sequence from it.

Every event is ``{"seq", "kind", "data"}``. Besides the pipeline's own
kinds (:mod:`council.events`) there are two more: ``result`` (the run's
summary, always last: status, degradation, final answer) and ``error`` (the
run could not be carried out at all).

Text the safety gate blocks never goes out, live or replayed: it is masked
as everywhere else (:func:`council.result.masked`). The gate decides once
every answer is in, so a live answer is screened as it arrives: with the
pattern gate, the same patterns run on it at once; with a second check (an
LLM classifier or a moderation API), its text waits for that verdict (the ``answer`` event goes out at
once without it, and again with it, masked if blocked). With the council's own reading
(``safety.council_review``, the default) the text waits until the reviews are read: a verdict from the
reading (``checker: "council"``, only for what it blocks) or the first ranking releases it.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Literal

from aiohttp import web

from council.config import CouncilConfig
from council.pipeline import cost_summary, run_finished_data, stage_events
from council.result import CouncilResult, masked, masked_evidence, masked_excerpt
from council.review import labels_for
from council.safety import check_answer

Event = dict[str, Any]
KEEP_FINISHED = 64
GateMode = Literal["off", "patterns", "classifier", "council"]
#: The events after which nothing more will decide an answer held for the council's reading.
_READ_BY = frozenset({"ranking", "final", "run_finished"})


def gate_mode(config: CouncilConfig) -> GateMode:
    """How the run's safety gate decides, which says when a live answer's text may go out."""
    if not config.safety.enabled:
        return "off"
    if config.safety.council_review:
        return "council"
    return "classifier" if config.safety.classifier is not None else "patterns"


def summary(result: CouncilResult) -> dict[str, Any]:
    """The data of a ``result`` event: how the run ended and why, and what it cost (None if not recorded)."""
    return {
        "status": result.status,
        "error": result.error,
        "degraded": result.degraded,
        "degraded_reasons": list(result.degraded_reasons),
        "simulated": result.simulated,
        "final_answer": result.final_answer.model_dump(mode="json") if result.final_answer else None,
        "timings": result.timings.model_dump(mode="json"),
        "usage": result.usage.model_dump(mode="json"),
        "cost": cost_summary(result),
        # The second round's record (review.rounds: 2), for a stored run's view; its first round is in the events.
        **({"deliberation": result.deliberation.event_data()} if result.deliberation else {}),
    }


def with_labels(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A review event with the anonymous labels its reviewer saw, so the page can say who was who."""
    if kind == "review" and "labels" not in data:
        order = list(data.get("order") or [])
        return {**data, "labels": dict(zip(labels_for(len(order)), order, strict=True))}
    return data


def replay_events(result: CouncilResult, chairman: str | None = None) -> list[Event]:
    """The events a stored run would have sent, rebuilt from its result (blocked text masked)."""
    result = masked(result)
    started = {"members": [a.member for a in result.answers], "chairman": chairman, "simulated": result.simulated}
    kinds: list[tuple[str, Any]] = [("run_started", started),
                                    *((e.kind, e.data) for e in stage_events(result, labels=True))]
    if result.status != "running":
        kinds.append(("run_finished", run_finished_data(result)))
    kinds.append(("result", summary(result)))
    return [{"seq": seq, "kind": kind, "data": data} for seq, (kind, data) in enumerate(kinds)]


class LiveRun:
    """One run's events so far, and a way to wait for the next."""

    def __init__(self, run_id: str, conversation_id: str, gate: GateMode = "patterns") -> None:
        self.run_id = run_id
        self.conversation_id = conversation_id
        self.gate = gate
        self.events: list[Event] = []
        self.finished = False
        self._changed = asyncio.Event()
        self._held: dict[str, dict[str, Any]] = {}  # answers waiting for the classifier's verdict, by member

    def add(self, kind: str, data: dict[str, Any]) -> None:
        """Append an event and wake every subscriber (callable from a synchronous event sink)."""
        if kind == "answer":
            data = self._screened(data)
        elif kind == "safety":
            self._append(kind, {**data, "findings": [
                {**f, "evidence": masked_evidence(f["evidence"], f["category"], f["rule"])}
                for f in data.get("findings") or []]})
            # Under the council's reading a pass before review decides nothing yet; a block always does.
            decides = self.gate != "council" or not data.get("passed") or data.get("checker") == "council"
            held = self._held.pop(data.get("member", ""), None) if decides else None
            if held is not None:
                category = (data.get("findings") or [{"category": "unsafe"}])[0]["category"]
                self._append("answer", held if data.get("passed") else
                             {**held, "status": "blocked", "content": masked_excerpt(held["content"], category)})
            self._wake()
            return
        elif self._held and self._releases(kind, data):
            # Past the gate without a verdict (it did not check them): nothing more will come for these.
            for held in self._held.values():
                self._append("answer", held)
            self._held.clear()
        self._append(kind, data)
        self._wake()

    def _releases(self, kind: str, data: dict[str, Any]) -> bool:
        """Whether this event lets the held answers go: the gate is past, and nothing more will block them."""
        if self.gate == "council":
            return kind in _READ_BY or (kind == "stage_started" and data.get("stage") in ("final", "deliberation"))
        return kind in ("stage_started", "run_finished")

    def _screened(self, answer: dict[str, Any]) -> dict[str, Any]:
        """An ``answer`` event as it may go out before the gate has spoken."""
        content = answer.get("content")
        if answer.get("status") != "ok" or not isinstance(content, str) or self.gate == "off":
            return answer
        verdict = check_answer(content)
        if not verdict.passed:
            return {**answer, "content": masked_excerpt(content, verdict.findings[0].category)}
        if self.gate in ("classifier", "council"):
            self._held[answer["member"]] = answer
            return {**answer, "content": None}
        return answer

    def _append(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append({"seq": len(self.events), "kind": kind, "data": with_labels(kind, data)})

    def finish(self) -> None:
        """Mark the run over: subscribers drain what is left and stop."""
        self.finished = True
        self._wake()

    def _wake(self) -> None:
        # A fresh Event per change: whoever waited on the old one wakes, later waiters wait for the next change.
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, seen: int, timeout: float) -> bool:
        """Wait until there are more than ``seen`` events or the run finished; False on timeout."""
        changed = self._changed
        if len(self.events) > seen or self.finished:
            return True
        try:
            await asyncio.wait_for(changed.wait(), timeout)
        except TimeoutError:
            return False
        return True


class LiveRuns:
    """The web page's recent runs, by run id: every unfinished one and the last ``keep`` finished."""

    def __init__(self, keep: int = KEEP_FINISHED) -> None:
        self.keep = keep
        self._runs: OrderedDict[str, LiveRun] = OrderedDict()

    def start(self, run_id: str, conversation_id: str, gate: GateMode = "patterns") -> LiveRun:
        """Register a run about to start; ``gate`` is how its safety gate decides (:func:`gate_mode`)."""
        run = LiveRun(run_id, conversation_id, gate)
        self._runs[run_id] = run
        self._evict()
        return run

    def get(self, run_id: str) -> LiveRun | None:
        """The run, if it is still in memory."""
        return self._runs.get(run_id)

    def running_in(self, conversation_id: str) -> LiveRun | None:
        """The unfinished run of a conversation, if any."""
        return next((r for r in self._runs.values() if r.conversation_id == conversation_id and not r.finished), None)

    @property
    def active(self) -> int:
        """How many runs have not finished."""
        return sum(not r.finished for r in self._runs.values())

    def _evict(self) -> None:
        finished = [run_id for run_id, run in self._runs.items() if run.finished]
        for run_id in finished[: max(0, len(finished) - self.keep)]:
            del self._runs[run_id]

    def finish(self, run: LiveRun) -> None:
        """Mark ``run`` finished and forget the oldest finished runs beyond ``keep``."""
        run.finish()
        if run.run_id in self._runs:
            self._runs.move_to_end(run.run_id)  # finished runs leave memory in the order they finished
        self._evict()


def _frame(event: Event) -> bytes:
    payload = json.dumps(event, ensure_ascii=False, default=str)
    return f"id: {event['seq']}\ndata: {payload}\n\n".encode()


async def stream_events(request: web.Request, source: LiveRun | Sequence[Event], after: int,
                        keepalive_s: float) -> web.StreamResponse:
    """Send a run's events from ``after`` on as SSE, live until it finishes, then an ``end`` event."""
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    # A dropped connection is retried by EventSource with Last-Event-ID, so nothing is sent twice.
    await response.write(b"retry: 2000\n\n")
    sent = after
    if isinstance(source, LiveRun):
        while True:
            # Events may arrive while a write is awaited: index one at a time so none is skipped.
            while sent < len(source.events):
                await response.write(_frame(source.events[sent]))
                sent += 1
            if source.finished:
                break
            if not await source.wait(sent, keepalive_s):
                await response.write(b": keep-alive\n\n")
    else:
        for event in source[sent:]:
            await response.write(_frame(event))
    await response.write(b"event: end\ndata: {}\n\n")
    await response.write_eof()
    return response
