"""How a run is kept: one compressed row per stage, holding only what that stage added.

A run is written four times as it goes (started, answers, ranking,
finished); each write carries the result's fields that stage set, as
compact JSON, compressed, so a typical run takes a few KB instead
of its whole result four times over. Reading merges the stage rows in
order (a later stage's field replaces an earlier one's) back into the same
:class:`~council.result.CouncilResult`.

Rows are compressed with zstd against a trained dictionary
(``dictionaries/``) of what every run repeats: field names, the default
rubric's criteria and feedback wording. Each row's zstd frame names its
dictionary by id. Rows written by earlier releases are zlib, with or
without a preset dictionary named by its Adler-32 checksum; they read as
before. A released dictionary never changes: a better one is a new file,
and readers keep every old one.

zstd rather than zlib: a zlib compressor primed with a 32 KB dictionary
has to be copied (about 256 KB of state) for every row, which cost more
than serializing the run; a zstd compressor keeps its digested dictionary
and is reused, so a run's four rows take about a fifth of the time, and
they come out smaller.
"""

from __future__ import annotations

import functools
import json
import threading
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import zstandard

from council.result import CouncilResult

Stage = Literal["started", "answers", "ranking", "deliberation", "finished"]
# What each stage may have changed; "started" writes the whole (still small) result.
_PROGRESS = frozenset({"status", "error", "degraded", "degraded_reasons", "stored", "timings"})
STAGE_FIELDS: dict[Stage, frozenset[str] | None] = {
    "started": None,
    "answers": _PROGRESS | {"answers", "safety_gate"},
    "ranking": _PROGRESS | {"reviews", "ranking", "agreement", "bias_flags", "calibration", "ranking_confidence",
                            "tied_for_first"},
    # A second round rewrites the answers it revised and everything ranked from them.
    "deliberation": _PROGRESS | {"answers", "safety_gate", "reviews", "ranking", "agreement", "bias_flags",
                                 "calibration", "ranking_confidence", "tied_for_first", "deliberation"},
    "finished": _PROGRESS | {"final_answer", "usage", "cost"},
}
ZSTD_LEVEL = 3
DICTIONARY_FOLDER = Path(__file__).parent / "dictionaries"
#: The dictionary new rows are written with.
CURRENT_DICTIONARY = "runs-3.zstd"
MAX_DICTIONARY_BYTES = 32 * 1024  # what a trained dictionary may hold
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_FDICT = 0x20  # the zlib header flag saying a preset dictionary was used


@functools.cache
def _zlib_dictionaries() -> dict[int, bytes]:
    """The zlib dictionaries of earlier releases, by Adler-32 checksum (the id zlib wrote into a row)."""
    found = (path.read_bytes() for path in sorted(DICTIONARY_FOLDER.glob("*.zdict")))
    return {zlib.adler32(data): data for data in found}


@functools.cache
def _zstd_dictionaries() -> dict[int, zstandard.ZstdCompressionDict]:
    """Every zstd dictionary this release can read, by the id each one's frames carry."""
    found = (zstandard.ZstdCompressionDict(path.read_bytes())
             for path in sorted(DICTIONARY_FOLDER.glob("*.zstd")))
    return {dictionary.dict_id(): dictionary for dictionary in found}


@functools.cache
def _current_dictionary() -> zstandard.ZstdCompressionDict:
    dictionary = zstandard.ZstdCompressionDict((DICTIONARY_FOLDER / CURRENT_DICTIONARY).read_bytes())
    dictionary.precompute_compress(level=ZSTD_LEVEL)  # digested once, shared by every thread's compressor
    return dictionary


class _PerThread(threading.local):
    """zstd (de)compressors may not be used by two threads at once: each thread keeps its own."""

    def __init__(self) -> None:
        self.compressor: zstandard.ZstdCompressor | None = None  # made on a thread's first write
        self.decompressors: dict[int, zstandard.ZstdDecompressor] = {}


_per_thread = _PerThread()


def encode_payload(text: str | bytes) -> bytes:
    """JSON text, compressed for storage against the current dictionary."""
    compressor = _per_thread.compressor
    if compressor is None:
        compressor = _per_thread.compressor = zstandard.ZstdCompressor(
            level=ZSTD_LEVEL, dict_data=_current_dictionary(), write_checksum=True)
    # A stream of unknown size: zstd then works with the digested dictionary where it is ("attaches" it)
    # instead of copying its tables into the context, which a one-shot compress of more than 16 KB (a
    # ranking row) does, at a third more work.
    stream = compressor.compressobj(size=-1)
    compressed: bytes = stream.compress(text.encode() if isinstance(text, str) else text) + stream.flush()
    return compressed


def decode_payload(payload: bytes) -> bytes:
    """The JSON text of a stored row, whichever dictionary (or none) and format it was written with."""
    if payload[:4] == _ZSTD_MAGIC:
        return _decode_zstd(payload)
    if len(payload) < 6 or not payload[1] & _FDICT:
        return zlib.decompress(payload)
    dictionary_id = int.from_bytes(payload[2:6], "big")
    dictionary = _zlib_dictionaries().get(dictionary_id)
    if dictionary is None:
        raise ValueError(f"row compressed with an unknown dictionary ({dictionary_id:#010x}): "
                         "written by a newer Council?")
    decompressor = zlib.decompressobj(zdict=dictionary)
    return decompressor.decompress(payload) + decompressor.flush()


def _decode_zstd(payload: bytes) -> bytes:
    try:
        dictionary_id = zstandard.get_frame_parameters(payload).dict_id
    except zstandard.ZstdError as exc:
        raise ValueError(f"unreadable zstd row: {exc}") from None
    decompressor = _per_thread.decompressors.get(dictionary_id)
    if decompressor is None:
        dictionary = _zstd_dictionaries().get(dictionary_id) if dictionary_id else None
        if dictionary_id and dictionary is None:
            raise ValueError(f"row compressed with an unknown dictionary ({dictionary_id:#010x}): "
                             "written by a newer Council?")
        decompressor = _per_thread.decompressors[dictionary_id] = zstandard.ZstdDecompressor(dict_data=dictionary)
    try:
        # A stream: rows do not record their length (see encode_payload).
        stream = decompressor.decompressobj()
        text: bytes = stream.decompress(payload)
        if not stream.eof:
            raise zstandard.ZstdError("the row ends before its frame does")
    except zstandard.ZstdError as exc:
        raise ValueError(f"unreadable zstd row: {exc}") from None
    return text


def stage_payload(result: CouncilResult, stage: Stage) -> bytes:
    """The compressed JSON of the fields ``stage`` set."""
    fields = STAGE_FIELDS[stage]
    # The serializer's own bytes: model_dump_json would decode them to str, and compressing encodes them again.
    text: bytes = result.__pydantic_serializer__.to_json(result, include=set(fields) if fields is not None else None)
    return encode_payload(text)


def merge_payloads(payloads: Iterable[bytes]) -> dict[str, Any]:
    """The stage rows of one run, in order, merged into the fields of one result."""
    merged: dict[str, Any] = {}
    for payload in payloads:
        merged.update(json.loads(decode_payload(payload)))
    return merged
