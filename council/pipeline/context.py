"""What every stage of one run shares."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from council.config import CouncilConfig
from council.events import EventSink, StageEvent, ignore_events
from council.logs import get_logger
from council.pipeline.budget import RunBudget
from council.providers import Provider
from council.result import CouncilResult, Timings
from council.rubrics.model import Rubric
from council.safety.moderation import Moderator
from council.storage.store import Store
from council.types import ChatMessage, GenerationParams

T = TypeVar("T")
_log = get_logger("stages")


@dataclass
class RunContext:
    """One run's question, config, clients, rubric, partial result and event sink."""

    question: list[ChatMessage]
    config: CouncilConfig
    providers: dict[str, Provider]
    rubric: Rubric
    result: CouncilResult
    emit_event: EventSink
    members: list[str]
    chairman: str | None
    seed: int
    params: GenerationParams | None = None
    #: Who reviews when a preset names a judge (each scores every answer); None: the members review each other.
    judges: list[str] | None = None
    #: The run's writes queued to the store and not yet checked (the store commits them in order), each
    #: with what its failure costs ("the run could not be stored").
    queued_writes: list[tuple[asyncio.Future[None], str]] = field(default_factory=list)
    #: What the run may spend (None: no cap); every stage's calls go through it.
    budget: RunBudget | None = None
    #: Seconds the run has waited for its database so far (at most ``storage.critical_wait_s`` in all).
    storage_waited_s: float = 0.0
    #: Where the run is saved and its reviewers' calibration history is kept (None: nowhere).
    store: Store | None = None
    #: The moderation API client when ``safety.moderation`` names a provider (None: no such check).
    moderator: Moderator | None = None

    def params_for(self, provider: Provider) -> GenerationParams | None:
        """The run's params as this member can take them.

        One request goes to members on different wire formats; a setting one of
        them lacks (``reasoning_effort`` on Anthropic, say) is left out for that
        member rather than failing the whole council.
        """
        if self.params is None:
            return None
        return self.params.without(provider.unsupported_params(self.params))

    @property
    def listening(self) -> bool:
        """Whether anyone receives events; payloads that cost something to build are skipped otherwise."""
        return self.emit_event is not ignore_events

    def emit(self, kind: str, **data: object) -> None:
        """Send a progress event; a failing listener never breaks the run."""
        if not self.listening:
            return  # nobody to tell: the event is not even built
        try:
            self.emit_event(StageEvent(kind=kind, run_id=self.result.run_id, data=data))  # type: ignore[arg-type]
        except Exception as exc:
            _log.warning("event_listener_failed", kind=kind, error=exc)


async def gather_until(
    jobs: Mapping[str, Awaitable[T]],
    deadline_s: float,
    on_done: Callable[[str, T], None],
) -> tuple[dict[str, T], list[str]]:
    """Run ``jobs`` concurrently until all finish or ``deadline_s`` passes.

    ``on_done`` is called as each one finishes, so progress is reported live.
    Jobs still running at the deadline are cancelled (and awaited, so no task
    is left behind); their names are returned as the second element.
    """
    tasks: dict[asyncio.Future[T], str] = {asyncio.ensure_future(job): name for name, job in jobs.items()}
    results: dict[str, T] = {}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + deadline_s
    pending: set[asyncio.Future[T]] = set(tasks)
    try:
        while pending:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            done, pending = await asyncio.wait(pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                name = tasks[task]
                results[name] = task.result()
                on_done(name, results[name])
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    return results, sorted(tasks[t] for t in pending)


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
