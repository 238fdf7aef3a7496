"""What every stage of one run shares."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from council.config import CouncilConfig
from council.events import EventSink, StageEvent, ignore_events
from council.logs import get_logger
from council.pipeline.budget import RunBudget
from council.pipeline.call_reuse import NOT_KEPT, CallReuse
from council.pipeline.plan import RunPlan
from council.pipeline.stragglers import LateCall, StragglerCut
from council.providers import Provider
from council.result import CouncilResult, Timings
from council.safety.moderation import Moderator
from council.storage.store import Store
from council.types import GenerationParams

T = TypeVar("T")
_log = get_logger("stages")


@dataclass
class RunContext:
    """One run: its plan, what it runs with, and what it has gathered so far.

    What the run does is its :class:`RunPlan` (``ctx.plan.members``,
    ``ctx.plan.rubric``, ...), never copied here; beside it are the run's
    dependencies (config, member clients, store, moderation, event sink)
    and the state the stages' loop keeps (the result, queued writes, late calls).
    """

    plan: RunPlan
    config: CouncilConfig
    providers: dict[str, Provider]
    result: CouncilResult
    emit_event: EventSink
    #: The review shuffle seed drawn for this run (the plan's, else ``review.seed``, else a random one).
    seed: int
    #: Where the run is saved and its reviewers' calibration history is kept (None: nowhere).
    store: Store | None = None
    #: The moderation API client when ``safety.moderation`` names a provider (None: no such check).
    moderator: Moderator | None = None
    #: What the run may spend (None: no cap); every stage's calls go through it.
    budget: RunBudget | None = None
    #: Kept replies that may stand in for this run's calls (None: every call goes upstream, as usual).
    call_reuse: CallReuse | None = None
    #: The run's writes queued to the store and not yet checked (the store commits them in order), each
    #: with what its failure costs ("the run could not be stored").
    queued_writes: list[tuple[asyncio.Future[None], str]] = field(default_factory=list)
    #: Seconds the run has waited for its database so far (at most ``storage.critical_wait_s`` in all).
    storage_waited_s: float = 0.0
    #: Calls cut as late and still running; the run's end keeps what they deliver and cancels the rest.
    late_calls: list[LateCall] = field(default_factory=list)

    def straggler_cut(self, expected: int) -> StragglerCut | None:
        """The straggler policy for a stage of ``expected`` calls (None when the run has none)."""
        if self.plan.straggler_factor is None:
            return None
        return StragglerCut(self.plan.straggler_factor, min(self.config.stages.quorum, expected))

    def kept(self, write: asyncio.Future[None]) -> None:
        """Check a kept call's write with the run's other writes."""
        self.queued_writes.append((write, NOT_KEPT))

    def params_for(self, provider: Provider) -> GenerationParams | None:
        """The run's params as this member can take them.

        One request goes to members on different wire formats; a setting one of
        them lacks (``reasoning_effort`` on Anthropic, say) is left out for that
        member rather than failing the whole council.
        """
        params = self.plan.params
        if params is None:
            return None
        return params.without(provider.unsupported_params(params))

    @property
    def listening(self) -> bool:
        """Whether anyone receives events; payloads that cost something to build are skipped otherwise."""
        return self.emit_event is not ignore_events

    @property
    def run_id(self) -> str:
        """The run's id, which every event it sends carries."""
        return self.result.run_id

    def emit(self, event: StageEvent) -> None:
        """Send a progress event; a failing listener never breaks the run.

        A payload that costs something to build is built under ``if ctx.listening:`` by the caller.
        """
        if not self.listening:
            return
        try:
            self.emit_event(event)
        except Exception as exc:
            _log.warning("event_listener_failed", kind=event.kind, error=exc)


@dataclass
class Gathered(Generic[T]):
    """What a stage's concurrent calls came to: the finished, those timed out, and those cut as late."""

    finished: dict[str, T]
    #: Still running at the stage deadline: cancelled.
    timed_out: list[str]
    #: Cut by the straggler policy once its quorum was in: still running, for the run's end to settle.
    late: dict[str, asyncio.Future[T]]
    #: Seconds after the start at which the policy stopped waiting (None: it did not).
    cut_after_s: float | None = None


async def gather_until(
    jobs: Mapping[str, Awaitable[T]],
    deadline_s: float,
    on_done: Callable[[str, T], None],
    cut: StragglerCut | None = None,
    succeeded: Callable[[T], bool] = lambda _result: True,
) -> Gathered[T]:
    """Run ``jobs`` concurrently until all finish, ``deadline_s`` passes, or ``cut`` stops the wait.

    ``on_done`` is called as each one finishes, so progress is reported live.
    Jobs still running at the deadline are cancelled (and awaited, so no task
    is left behind). With ``cut``, once enough jobs have ``succeeded`` the
    wait ends at the time the cut allows, and the jobs still running are
    handed back as ``late``, running.
    """
    tasks: dict[asyncio.Future[T], str] = {asyncio.ensure_future(job): name for name, job in jobs.items()}
    results: dict[str, T] = {}
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + deadline_s
    pending: set[asyncio.Future[T]] = set(tasks)
    arrived_s: list[float] = []
    cut_after_s: float | None = None
    late = False
    try:
        while pending:
            limit = deadline if cut_after_s is None else min(deadline, started + cut_after_s)
            remaining = limit - loop.time()
            if remaining <= 0:
                late = limit < deadline
                break
            done, pending = await asyncio.wait(pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                name = tasks[task]
                results[name] = task.result()
                on_done(name, results[name])
                if succeeded(results[name]):
                    arrived_s.append(loop.time() - started)
            if cut is not None:
                cut_after_s = cut.cut_after_s(arrived_s)
    finally:
        if not late:
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
    if late:
        return Gathered(results, [], {tasks[t]: t for t in sorted(pending, key=tasks.__getitem__)}, cut_after_s)
    return Gathered(results, sorted(tasks[t] for t in pending), {}, cut_after_s)


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (a perf_counter reading), to the microsecond."""
    # Every run stores a few dozen of these: digits past the microsecond are noise that costs bytes.
    return round((time.perf_counter() - started) * 1000, 3)


def ordered(records: Sequence[T], names: Sequence[str], key: Callable[[T], str]) -> list[T]:
    """``records`` sorted into the order of ``names``."""
    position = {name: index for index, name in enumerate(names)}
    return sorted(records, key=lambda record: position.get(key(record), len(position)))


@contextmanager
def timed(timings: Timings, field: str) -> Iterator[None]:
    """Add the time the block takes to ``timings.<field>``, in milliseconds, even when it raises."""
    started = time.perf_counter()
    try:
        yield
    finally:
        setattr(timings, field, round(getattr(timings, field) + elapsed_ms(started), 3))
