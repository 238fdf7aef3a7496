"""The result cache: a run asked again the same way is answered from the stored run, at no upstream cost.

Chat apps regenerate, users retry, evaluations are re-run after a crash.
With ``cache.ttl_s`` set, a finished run that went well is remembered by
its key (:func:`run_key`: everything that decides its result) and answers
the same request until it expires. A hit is a new run of its own (its own
id, stored, zero cost) that says where it came from (``cached_from``), and
it replays the stages' events quickly so a stream still streams (a
second round's too, in the order it ran: :mod:`council.pipeline.replay`
builds them, as it does for the page's view of a stored run). What a hit
may never be: a failed, interrupted or degraded run (:func:`cacheable`).

The table is :mod:`council.storage.result_cache`'s; this module knows what
a key is made of and how a hit looks, nothing of SQL.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from council._version import __version__
from council.config import CouncilConfig
from council.events import EventSink, RunFinishedEvent, RunStartedEvent, ignore_events
from council.logs import get_logger
from council.pipeline.payloads import run_finished_data
from council.pipeline.persist import wait_unless_away
from council.pipeline.plan import RunPlan
from council.pipeline.replay import stage_events
from council.result import CouncilResult, RunCost, Timings
from council.storage.run_writes import prepare_stage
from council.storage.store import Store
from council.types import Usage

_log = get_logger("council.cache")


def run_key(plan: RunPlan, config: CouncilConfig, config_hash: str, prompt_hashes: dict[str, str]) -> str:
    """The cache key of a planned run: a hash of everything that decides its result.

    The messages (images included), who answers and chairs and with which
    models, the rubric's content, how answers are judged, the generation
    settings (the end user's ``user`` and ``safety_identifier`` among them),
    the preset, the budget and straggler policy, the whole config and the
    prompt templates, Council's version, and the cache scope when not the
    shared one (``cache.scope: key``).
    """
    members = {name: config.member(name).model_dump(mode="json") for name in plan.callers}
    facts: dict[str, Any] = {
        "messages": [m.model_dump(mode="json") for m in plan.messages],
        "members": list(plan.members), "chairman": plan.chairman, "models": members,
        "rubric": [plan.rubric.id, plan.rubric.version, plan.rubric.content_hash()],
        "judging": plan.judging.model_dump(mode="json") if plan.judging is not None else None,
        "params": plan.params.model_dump(mode="json", exclude_none=True) if plan.params is not None else None,
        "preset": plan.preset, "budget_usd": plan.budget_usd, "straggler_factor": plan.straggler_factor,
        "config": config_hash, "prompts": prompt_hashes, "version": __version__,
    }
    if plan.rounds > 1:
        facts["deliberation"] = [plan.rounds, plan.deliberate_below]
    if plan.output is not None:
        facts["output"] = plan.output.fingerprint()
    if plan.cache_scope:
        facts["scope"] = plan.cache_scope
    return hashlib.sha256(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest()


class CacheCircuit:
    """Whether the result cache's database is worth asking: a circuit that opens when a lookup fails.

    A cache is an optimisation. When its database is down, a lookup that
    waits ``storage.critical_wait_s`` every time would cost every request
    that wait for the whole outage. After a failure the circuit opens:
    lookups are skipped (a miss, at no cost) for ``first_pause_s``; then one
    lookup probes, and the pause doubles (up to ``max_pause_s``) while the
    probes fail. One warning when it opens, one line when it closes again.
    """

    def __init__(self, first_pause_s: float = 5.0, max_pause_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.first_pause_s = first_pause_s
        self.max_pause_s = max_pause_s
        self.clock = clock
        self.pause_s = first_pause_s
        self.open_until: float | None = None
        self.probing = False
        #: Lookups that failed, and lookups skipped while the circuit was open (for tests and metrics).
        self.failures = 0
        self.skipped = 0

    def allows(self, writes_waiting: bool = False) -> bool:
        """Whether to ask the database now (closed, or the one probe of an open circuit whose pause is over).

        ``writes_waiting``: the store's writer still holds writes the
        database has not taken. It tries them again twice a second, a probe
        that costs no request anything; until they land an open circuit
        stays open, since a probe of its own would wait out
        ``storage.critical_wait_s`` only to learn what the writer knows.
        """
        if self.open_until is None:
            return True
        if not self.probing and not writes_waiting and self.clock() >= self.open_until:
            self.probing = True
            return True
        self.skipped += 1
        return False

    def succeeded(self) -> None:
        if self.open_until is not None:
            _log.info("result_cache_available", after_failures=self.failures)
        self.open_until, self.pause_s, self.probing = None, self.first_pause_s, False

    def failed(self, cause: str) -> None:
        self.failures += 1
        if self.open_until is None:
            _log.warning("result_cache_unavailable", cause=cause, skipped_for_s=self.pause_s)
        self.open_until = self.clock() + self.pause_s
        self.pause_s = min(self.pause_s * 2, self.max_pause_s)
        self.probing = False


def cacheable(result: CouncilResult) -> bool:
    """Whether a finished run may answer later requests: complete, not degraded, stored, and not itself a hit."""
    return result.status == "complete" and not result.degraded and result.stored and result.cached_from is None


def served_from_cache(cached: CouncilResult, run_id: str) -> CouncilResult:
    """The new run a hit is: the cached run's records under a new id, marked, at no upstream cost."""
    return cached.model_copy(update={
        "run_id": run_id, "created_at": datetime.now(UTC), "cached_from": cached.run_id,
        "usage": Usage(), "cost": RunCost(total_usd=0.0), "timings": Timings(), "stored": True,
    }, deep=True)


def replay(result: CouncilResult, chairman: str | None, sink: EventSink) -> None:
    """Send the events the cached run sent, at once: a stream shows its stages, then the answer in deltas."""
    sink(RunStartedEvent(result.run_id, {"members": [a.member for a in result.answers], "chairman": chairman,
                                         "simulated": result.simulated, "cached_from": result.cached_from}))
    for event in stage_events(result, deltas=True):
        sink(event)


async def serve_hit(cached: CouncilResult, run_id: str, chairman: str | None, sink: EventSink, store: Store | None,
                    critical_wait_s: float, waited_s: float = 0.0) -> CouncilResult:
    """Answer a run from ``cached``: replay its events, store it as run ``run_id``.

    Its row is queued to the store's writer as a run's rows are, and waited
    for within what is left of ``critical_wait_s`` after the ``waited_s``
    its lookup took (an outage costs a hit one wait in all). While the
    writer holds writes the database has not taken (it is down, or another
    process holds SQLite's lock), the hit does not wait for its row at all,
    as a run does not: the row waits with them and lands when the database
    is back. Unlike a run, a hit does not wait either while the writer
    waits for a lock another process holds (SQLite): a hit is meant to be
    fast, and SQLite tells such a lock only by waiting it out.
    """
    started = time.perf_counter()
    result = served_from_cache(cached, run_id)
    if sink is not ignore_events:
        replay(result, chairman, sink)
    result.timings.total_ms = round((time.perf_counter() - started) * 1000, 3)
    if store is not None:
        write = store.queue_stage(prepare_stage(result, "started"))
        if not store.db.known_unavailable:
            await wait_unless_away(store, [write], max(0.0, critical_wait_s - waited_s), nor_when_blocked=True)
        error = write.exception() if write.done() and not write.cancelled() else None
        if error is not None:
            result.stored = False
            result.degrade(f"the run could not be stored ({error})")
        elif not write.done():
            write.add_done_callback(lambda done: done.cancelled() or done.exception())
            result.stored = False
            why = ("the database is unavailable" if store.db.known_unavailable
                   else "another process holds the database's write lock" if store.db.writer_blocked
                   else f"the database did not answer within {critical_wait_s:g} s")
            result.degrade(f"the run is not stored yet ({why}): it is written in the background when the "
                           "database is back")
    sink(RunFinishedEvent(result.run_id, run_finished_data(result)))
    return result
