"""How a run is kept: one compressed row per stage, holding only what that stage added.

A run is written four times as it goes (started, answers, ranking,
finished); each write carries the result's fields that stage set, as
compact JSON compressed with zlib, so a typical run takes a few KB instead
of its whole result four times over. Reading merges the stage rows in
order (a later stage's field replaces an earlier one's) back into the same
:class:`~council.result.CouncilResult`.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from typing import Any, Literal

from council.result import CouncilResult

Stage = Literal["started", "answers", "ranking", "finished"]
# What each stage may have changed; "started" writes the whole (still small) result.
_PROGRESS = frozenset({"status", "error", "degraded", "degraded_reasons", "stored", "timings"})
STAGE_FIELDS: dict[Stage, frozenset[str] | None] = {
    "started": None,
    "answers": _PROGRESS | {"answers"},
    "ranking": _PROGRESS | {"reviews", "ranking", "agreement", "bias_flags", "calibration"},
    "finished": _PROGRESS | {"final_answer", "usage"},
}
# Fast enough to cost little per stage, and about 5x smaller than the JSON for a typical run.
COMPRESSION_LEVEL = 1


def encode_payload(text: str | bytes) -> bytes:
    """JSON text, compressed for storage."""
    return zlib.compress(text.encode() if isinstance(text, str) else text, COMPRESSION_LEVEL)


def stage_payload(result: CouncilResult, stage: Stage) -> bytes:
    """The compressed JSON of the fields ``stage`` set."""
    fields = STAGE_FIELDS[stage]
    return encode_payload(result.model_dump_json(include=set(fields) if fields is not None else None))


def merge_payloads(payloads: Iterable[bytes]) -> dict[str, Any]:
    """The stage rows of one run, in order, merged into the fields of one result."""
    merged: dict[str, Any] = {}
    for payload in payloads:
        merged.update(json.loads(zlib.decompress(payload)))
    return merged
