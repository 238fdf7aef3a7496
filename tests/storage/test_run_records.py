"""Stage rows: zstd against a trained dictionary, readable whatever format and dictionary (or none) wrote them."""

from __future__ import annotations

import json
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
import zstandard

from council import Council
from council.storage.run_records import (
    CURRENT_DICTIONARY,
    DICTIONARY_FOLDER,
    decode_payload,
    encode_payload,
    merge_payloads,
)
from council.storage.store import Store
from tests.storage.test_store import simulated_without_latency

# A released dictionary is part of the database format: rows name it by this checksum. Never edit the
# file; a better dictionary is a new file beside it.
RELEASED = {"runs-1.zdict": 0x4EF077D9, "runs-2.zdict": 0x0DE28071, "runs-3.zstd": 0x1D844D03}
ZLIB_RELEASED = [name for name in RELEASED if name.endswith(".zdict")]


def test_released_dictionaries_never_change():
    for name, checksum in RELEASED.items():
        assert zlib.adler32((DICTIONARY_FOLDER / name).read_bytes()) == checksum, f"{name} was edited"
    assert CURRENT_DICTIONARY in RELEASED


def test_rows_round_trip_as_zstd_frames_and_rows_written_without_a_dictionary_still_read():
    text = json.dumps({"status": "complete", "answers": [{"member": "atlas", "content": "Rayleigh scattering."}]})
    row = encode_payload(text)
    assert zstandard.get_frame_parameters(row).dict_id == zstandard.ZstdCompressionDict(
        (DICTIONARY_FOLDER / CURRENT_DICTIONARY).read_bytes()).dict_id(), "new rows name the current dictionary"
    assert decode_payload(row) == text.encode()
    assert decode_payload(zlib.compress(text.encode(), 6)) == text.encode(), "rows from before dictionaries"
    assert decode_payload(zstandard.ZstdCompressor().compress(text.encode())) == text.encode(), "zstd, no dictionary"
    assert merge_payloads([zlib.compress(b'{"status": "running", "error": null}'),
                           encode_payload('{"status": "complete"}')]) == {"status": "complete", "error": None}


def test_rows_written_by_earlier_releases_with_their_zlib_dictionaries_still_read():
    text = b'{"status": "complete", "ranking": [], "agreement": {"statistic": "none"}}'
    for name in ZLIB_RELEASED:
        compressor = zlib.compressobj(1, zdict=(DICTIONARY_FOLDER / name).read_bytes())
        assert decode_payload(compressor.compress(text) + compressor.flush()) == text, name


def test_rows_are_written_and_read_from_many_threads_at_once():
    # zstd (de)compressors are not thread-safe: each thread must get its own.
    texts = [json.dumps({"status": "complete", "n": n, "notes": "x" * n}).encode() for n in range(400)]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda text: decode_payload(encode_payload(text)), texts)) == texts


def test_a_row_from_an_unknown_dictionary_is_a_clear_error():
    compressor = zlib.compressobj(zdict=b'{"some other dictionary": true}')
    row = compressor.compress(b'{"status": "complete"}') + compressor.flush()
    with pytest.raises(ValueError, match=r"unknown dictionary \(0x[0-9a-f]{8}\): written by a newer Council"):
        decode_payload(row)
    other = zstandard.train_dictionary(2048, [json.dumps({"key": n, "value": "word " * (n % 7)}).encode()
                                              for n in range(2000)])
    row = zstandard.ZstdCompressor(dict_data=other).compress(b'{"status": "complete"}')
    with pytest.raises(ValueError, match=rf"unknown dictionary \({other.dict_id():#010x}\): written by a newer"):
        decode_payload(row)


def test_a_damaged_zstd_row_is_a_clear_error():
    row = encode_payload(json.dumps({"status": "complete", "notes": "a long enough note " * 20}))
    with pytest.raises(ValueError, match="unreadable zstd row"):
        decode_payload(row[:4] + b"\x00" * 8)
    with pytest.raises(ValueError, match="unreadable zstd row"):
        decode_payload(row[:-6] + bytes(6))  # the checksum catches a damaged end
    with pytest.raises(ValueError, match="unreadable zstd row: the row ends before its frame does"):
        decode_payload(row[:-10])


async def test_a_typical_run_takes_under_four_kilobytes_of_rows(tmp_path):
    """4 members, a chairman, the default rubric: the rows a real run writes, against zlib without a dictionary."""
    store = Store(tmp_path / "council.db")
    try:
        async with Council(simulated_without_latency(), store=store) as council:
            run = await council.ask("Why is the sky blue?")
        rows = store.db.fetchall("SELECT payload FROM run_stages WHERE run_id = ?", (run.run_id,))
    finally:
        store.close()
    stored = sum(len(bytes(row[0])) for row in rows)
    without = sum(len(zlib.compress(decode_payload(bytes(row[0])), 1)) for row in rows)
    assert len(rows) == 4 and stored < 4096, f"{len(rows)} rows, {stored} bytes"
    assert stored < 0.8 * without, f"{stored} bytes with the dictionary, {without} without"
