"""How a run is kept: one compressed row per stage, holding only what that stage added.

A run is written four times as it goes (started, answers, ranking,
finished); each write carries the result's fields that stage set, as
compact JSON compressed with zlib, so a typical run takes a few KB instead
of its whole result four times over. Reading merges the stage rows in
order (a later stage's field replaces an earlier one's) back into the same
:class:`~council.result.CouncilResult`.

Rows are compressed against a preset dictionary (``dictionaries/``) of the
strings every run repeats: field names, the default rubric's criteria and
feedback wording. zlib records the dictionary's Adler-32 checksum in each
row's header, so a row names the dictionary it needs; rows written without
one (before dictionaries) read as before. A released dictionary never
changes: a better one is a new file, and readers keep every old one.
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from council.result import CouncilResult

Stage = Literal["started", "answers", "ranking", "finished"]
# What each stage may have changed; "started" writes the whole (still small) result.
_PROGRESS = frozenset({"status", "error", "degraded", "degraded_reasons", "stored", "timings"})
STAGE_FIELDS: dict[Stage, frozenset[str] | None] = {
    "started": None,
    "answers": _PROGRESS | {"answers"},
    "ranking": _PROGRESS | {"reviews", "ranking", "agreement", "bias_flags", "calibration", "ranking_confidence",
                            "tied_for_first"},
    "finished": _PROGRESS | {"final_answer", "usage", "cost"},
}
# Level 1 with the dictionary is both faster and smaller than level 6 without it.
COMPRESSION_LEVEL = 1
DICTIONARY_FOLDER = Path(__file__).parent / "dictionaries"
#: The dictionary new rows are written with.
CURRENT_DICTIONARY = "runs-2.zdict"
MAX_DICTIONARY_BYTES = 32 * 1024  # zlib's window: it never looks further back
_FDICT = 0x20  # the header flag saying a preset dictionary was used


@functools.cache
def _dictionaries() -> dict[int, bytes]:
    """Every dictionary this release can read, by Adler-32 checksum (the id zlib writes into a row)."""
    found = (path.read_bytes() for path in sorted(DICTIONARY_FOLDER.glob("*.zdict")))
    return {zlib.adler32(data): data for data in found}


@functools.cache
def _primed_compressor() -> Any:
    # Loading a 32 KB dictionary costs more than compressing a row: load it once, copy the primed state per row.
    return zlib.compressobj(COMPRESSION_LEVEL, zdict=(DICTIONARY_FOLDER / CURRENT_DICTIONARY).read_bytes())


def encode_payload(text: str | bytes) -> bytes:
    """JSON text, compressed for storage against the current dictionary."""
    compressor = _primed_compressor().copy()
    data = text.encode() if isinstance(text, str) else text
    compressed: bytes = compressor.compress(data) + compressor.flush()
    return compressed


def decode_payload(payload: bytes) -> bytes:
    """The JSON text of a stored row, whichever dictionary (or none) it was written with."""
    if len(payload) < 6 or not payload[1] & _FDICT:
        return zlib.decompress(payload)
    dictionary_id = int.from_bytes(payload[2:6], "big")
    dictionary = _dictionaries().get(dictionary_id)
    if dictionary is None:
        raise ValueError(f"row compressed with an unknown dictionary ({dictionary_id:#010x}): "
                         "written by a newer Council?")
    decompressor = zlib.decompressobj(zdict=dictionary)
    return decompressor.decompress(payload) + decompressor.flush()


def stage_payload(result: CouncilResult, stage: Stage) -> bytes:
    """The compressed JSON of the fields ``stage`` set."""
    fields = STAGE_FIELDS[stage]
    return encode_payload(result.model_dump_json(include=set(fields) if fields is not None else None))


def merge_payloads(payloads: Iterable[bytes]) -> dict[str, Any]:
    """The stage rows of one run, in order, merged into the fields of one result."""
    merged: dict[str, Any] = {}
    for payload in payloads:
        merged.update(json.loads(decode_payload(payload)))
    return merged
