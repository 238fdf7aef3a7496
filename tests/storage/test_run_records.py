"""Stage rows: compressed against a preset dictionary, readable whatever dictionary (or none) wrote them."""

from __future__ import annotations

import json
import zlib

import pytest

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
RELEASED = {"runs-1.zdict": 0x4EF077D9, "runs-2.zdict": 0x0DE28071}


def test_released_dictionaries_never_change():
    for name, checksum in RELEASED.items():
        assert zlib.adler32((DICTIONARY_FOLDER / name).read_bytes()) == checksum, f"{name} was edited"
    assert CURRENT_DICTIONARY in RELEASED


def test_rows_round_trip_and_rows_written_without_a_dictionary_still_read():
    text = json.dumps({"status": "complete", "answers": [{"member": "atlas", "content": "Rayleigh scattering."}]})
    assert decode_payload(encode_payload(text)) == text.encode()
    assert decode_payload(zlib.compress(text.encode(), 6)) == text.encode(), "rows from before dictionaries"
    assert merge_payloads([zlib.compress(b'{"status": "running", "error": null}'),
                           encode_payload('{"status": "complete"}')]) == {"status": "complete", "error": None}


def test_rows_written_with_an_older_dictionary_still_read():
    text = b'{"status": "complete", "ranking": [], "agreement": {"statistic": "none"}}'
    for name in RELEASED:
        compressor = zlib.compressobj(1, zdict=(DICTIONARY_FOLDER / name).read_bytes())
        assert decode_payload(compressor.compress(text) + compressor.flush()) == text, name


def test_a_row_from_an_unknown_dictionary_is_a_clear_error():
    compressor = zlib.compressobj(zdict=b'{"some other dictionary": true}')
    row = compressor.compress(b'{"status": "complete"}') + compressor.flush()
    with pytest.raises(ValueError, match=r"unknown dictionary \(0x[0-9a-f]{8}\): written by a newer Council"):
        decode_payload(row)


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
