"""Progress events a run emits while it works, for the CLI, the server and the web page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

EventKind = Literal[
    "run_started",
    "stage_started",
    "answer",
    "safety",
    "review",
    "ranking",
    "final_delta",
    "final",
    "run_finished",
]


@dataclass(frozen=True)
class StageEvent:
    """One thing that happened in a run. ``data`` is JSON-ready."""

    kind: EventKind
    run_id: str
    data: dict[str, Any] = field(default_factory=dict)


EventSink = Callable[[StageEvent], None]


def ignore_events(_event: StageEvent) -> None:
    """The sink used when nobody listens."""
