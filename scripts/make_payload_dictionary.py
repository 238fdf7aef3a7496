"""Train a zstd dictionary for stored run stages (council/storage/dictionaries/).

A stage row is a small JSON document; most of its bytes are the same in
every run (field names, rubric criteria and their feedback text, status
words). A compressor compresses a small document poorly on its own, but
given a dictionary holding those common strings, it refers to them instead
of repeating them: a typical run's rows shrink from about 5.5 KB to about 3 KB.

The dictionary is made from the stage rows of simulated runs with their
prose emptied (questions, answers, notes, final answers), so it holds the
structure and the default rubric's wording, not simulated text. It is data
the database depends on: once released, a dictionary file never changes
(rows name it by the id zstd writes into each frame). To improve it, write
a new file with the next number (earlier releases' zlib dictionaries,
``.zdict``, share the numbering); readers keep every old one.

    .venv/bin/python scripts/make_payload_dictionary.py NUMBER [--runs 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import yaml
import zstandard

from council import Council, CouncilConfig, CouncilResult
from council.config import simulated_config_path
from council.storage.run_records import DICTIONARY_FOLDER, MAX_DICTIONARY_BYTES, STAGE_FIELDS, ZSTD_LEVEL, Stage

PROSE_FIELDS = {"content", "notes", "message", "question", "fallback_reason", "error"}
STAGES: tuple[Stage, ...] = ("started", "answers", "ranking", "finished")


def without_prose(value: Any) -> Any:
    """``value`` with free text emptied: what is left is what every run repeats."""
    if isinstance(value, dict):
        return {key: ("" if key in PROSE_FIELDS and isinstance(item, str) else without_prose(item))
                for key, item in value.items()}
    if isinstance(value, list):
        return [without_prose(item) for item in value]
    return value


def stage_documents(result: CouncilResult) -> list[bytes]:
    """The JSON of each stage row of ``result``, prose emptied, in the order a run writes them."""
    documents = []
    for stage in STAGES:
        fields = STAGE_FIELDS[stage]
        data = json.loads(result.model_dump_json(include=set(fields) if fields is not None else None))
        documents.append(json.dumps(without_prose(data), separators=(",", ":")).encode())
    return documents


async def simulated_runs(count: int) -> list[CouncilResult]:
    raw = yaml.safe_load(simulated_config_path().read_text())
    for member in raw["members"]:
        member["persona"]["latency_ms"] = 0
    async with Council(CouncilConfig.model_validate(raw), store=False) as council:
        return [await council.ask(f"Question {n}?") for n in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("number", type=int, help="the new dictionary's number (never reuse one)")
    parser.add_argument("--runs", type=int, default=60, help="simulated runs to train on")
    args = parser.parse_args()
    taken = sorted(DICTIONARY_FOLDER.glob(f"runs-{args.number}.*"))
    if taken:
        sys.exit(f"{taken[0]} exists: a released dictionary never changes; pick the next number")
    target = DICTIONARY_FOLDER / f"runs-{args.number}.zstd"
    documents = [doc for result in asyncio.run(simulated_runs(args.runs)) for doc in stage_documents(result)]
    dictionary = zstandard.train_dictionary(MAX_DICTIONARY_BYTES, documents, level=ZSTD_LEVEL)
    target.write_bytes(dictionary.as_bytes())
    print(f"{target}: {len(dictionary.as_bytes())} bytes, dictionary id {dictionary.dict_id():#010x}, "
          f"trained on {len(documents)} stage rows")

if __name__ == "__main__":
    main()
