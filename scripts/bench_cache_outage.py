"""Result cache during a database outage: what a question costs with PostgreSQL stopped or SQLite locked.

The council (4 members and a chairman on the scripted fake upstream, its
own process, over real HTTP on 127.0.0.1) runs in this process with the
result cache on (``cache.ttl_s: 3600``) and every other setting at its
default (``storage.critical_wait_s`` 2 s, ``cache.outage_pause_s`` 5 s).
Questions are asked one at a time, as a user retrying would.

- PostgreSQL (a private server started here): after a warm-up, ``--questions``
  distinct questions with the database up (the normal time), then the
  server is stopped (``pg_ctl stop -m fast``) and as many distinct questions
  are asked, then as many repeats of a question cached before the stop (a
  database that is down serves no hit: the council runs). Each latency is
  shown with its excess over the normal median; then the server is started
  again and the script waits until every run answered during the outage is
  stored.
- SQLite: ``--questions`` questions are asked and cached, asked again (hits,
  the normal hit time), then another process takes the file's write lock
  (``BEGIN EXCLUSIVE``, held open) and they are asked a third time: hit or
  miss, and the latency of each against the unlocked hit median.

    .venv/bin/python scripts/bench_cache_outage.py [--questions 20] [--parts postgresql,sqlite] [--latency 0.05]
        [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import MEMBERS, fake_upstream

from council import Council, CouncilConfig, CouncilResult
from council.storage.sqlite import LOCK_PROBE_S
from council.testing.postgres import PostgresServer, find_pg_bindir
from council.testing.sqlite_lock import sqlite_locked_elsewhere

PARTS = ("postgresql", "sqlite")
CACHED_QUESTION = "Why does ice float on water?"
#: The issue's targets: excess over the normal time of the first question of an outage, and of every later one.
FIRST_TARGET_S, LATER_TARGET_S = 2.0, 0.2
STORED_WAIT_S = 120.0  # the longest the script waits for the outage's runs to be stored once the database is back


@dataclass
class Sample:
    """One question as the caller saw it."""

    seconds: float
    hit: bool
    status: str
    stored: bool
    calls: int  # upstream calls the run made (0 for a hit)
    tokens: int
    run_id: str


def council_config(upstream_url: str, storage: dict[str, Any]) -> CouncilConfig:
    """Four members and a chairman on the fake upstream, the result cache on, storage at ``storage``."""
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}", "base_url": upstream_url}
                    for name in MEMBERS],
        "chairman": "alpha", "cache": {"ttl_s": 3600}, "storage": storage,
    })


def upstream_calls(result: CouncilResult) -> int:
    """The calls a run made upstream: its answers, its reviews and its chairman's answer (none for a hit)."""
    if result.cached_from is not None:
        return 0
    chairman = result.final_answer is not None and result.final_answer.usage.total_tokens > 0
    return len(result.answers) + len(result.reviews) + int(chairman)


async def timed(council: Council, question: str) -> Sample:
    started = time.perf_counter()
    result = await council.ask(question)
    seconds = time.perf_counter() - started
    if result.status != "complete":
        raise RuntimeError(f"{question!r}: the run ended {result.status}: {result.degraded_reasons}")
    return Sample(seconds, result.cached_from is not None, result.status, result.stored, upstream_calls(result),
                  result.usage.total_tokens, result.run_id)


async def one_at_a_time(council: Council, questions: list[str]) -> list[Sample]:
    return [await timed(council, question) for question in questions]


async def wait_stored(council: Council, run_ids: list[str]) -> float:
    """Seconds until every run in ``run_ids`` is stored complete (raises past :data:`STORED_WAIT_S`)."""
    store = council.store
    assert store is not None
    started = time.monotonic()
    while time.monotonic() - started < STORED_WAIT_S:
        try:
            statuses = await store.call(store.run_statuses, run_ids)
        except Exception:
            statuses = {}
        if sum(status == "complete" for status in statuses.values()) == len(run_ids):
            return time.monotonic() - started
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the outage's runs were not all stored {STORED_WAIT_S:g} s after the database was back")


async def postgres_part(upstream_url: str, server: PostgresServer, count: int) -> dict[str, Any]:
    """Questions with PostgreSQL up, then stopped: distinct ones, and repeats of a question cached before."""
    config = council_config(upstream_url, {"url": server.create_database("bench")})
    async with Council(config, environ={}) as council:
        await council.ask("Warm-up question?")
        cached = await timed(council, CACHED_QUESTION)
        hit_up = await timed(council, CACHED_QUESTION)
        assert hit_up.hit and not cached.hit, "the question to repeat is cached"
        up = await one_at_a_time(council, [f"Question {n} with the database up?" for n in range(count)])
        await asyncio.to_thread(server.halt)
        try:
            down = await one_at_a_time(council, [f"Question {n} with PostgreSQL stopped?" for n in range(count)])
            repeats = await one_at_a_time(council, [CACHED_QUESTION] * count)
        finally:
            await asyncio.to_thread(server.resume)
        stored_after_s = await wait_stored(council, [s.run_id for s in down + repeats])
        circuit = council.cache_circuit
        return {"up": up, "down": down, "repeats": repeats, "cached_run": cached, "hit_up": hit_up,
                "stored_after_s": stored_after_s,
                "circuit": {"failures": circuit.failures, "skipped": circuit.skipped}}


async def sqlite_part(upstream_url: str, folder: Path, count: int) -> dict[str, Any]:
    """Questions cached, asked again (hits), then asked a third time while another process holds the lock."""
    path = folder / "council.db"
    questions = [f"Cached question {n}?" for n in range(count)]
    async with Council(council_config(upstream_url, {"path": str(path)}), environ={}) as council:
        await council.ask("Warm-up question?")
        first = await one_at_a_time(council, questions)
        assert not any(s.hit for s in first), "fresh questions are misses"
        unlocked = await one_at_a_time(council, questions)
        with sqlite_locked_elsewhere(path):
            locked = await one_at_a_time(council, questions)
        stored_after_s = await wait_stored(council, [s.run_id for s in locked])
        return {"unlocked": unlocked, "locked": locked, "stored_after_s": stored_after_s}


def median(samples: list[Sample]) -> float:
    return statistics.median(s.seconds for s in samples)


def outcome(sample: Sample) -> str:
    kind = "hit" if sample.hit else f"miss, {sample.calls} calls"
    return f"{kind}, {'stored' if sample.stored else 'stored later'}"


def print_postgres(figures: dict[str, Any]) -> None:
    up, down, repeats = figures["up"], figures["down"], figures["repeats"]
    normal = median(up)
    print(f"### PostgreSQL stopped: {len(up)} questions one at a time with it up, then {len(down)} with it stopped, "
          f"then {len(repeats)} repeats of a question cached before the stop\n")
    print("| # | up | stopped | excess over the up median | cached question, stopped | excess | its outcome |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for n in range(len(up)):
        print(f"| {n + 1} | {up[n].seconds * 1000:.0f} ms | {down[n].seconds * 1000:.0f} ms | "
              f"{down[n].seconds - normal:+.3f} s | {repeats[n].seconds * 1000:.0f} ms | "
              f"{repeats[n].seconds - normal:+.3f} s | {outcome(repeats[n])} |")
    later = [s.seconds - normal for s in down[1:] + repeats]
    print(f"\nNormal (median with PostgreSQL up): {normal * 1000:.0f} ms; a hit with it up: "
          f"{figures['hit_up'].seconds * 1000:.1f} ms. Stopped: the first question {down[0].seconds - normal:+.3f} s "
          f"(target +{FIRST_TARGET_S:g} s), every later one at most {max(later):+.3f} s (target "
          f"+{LATER_TARGET_S:g} s). The repeats: {sum(not s.hit for s in repeats)} of {len(repeats)} misses, "
          f"{statistics.mean(s.calls for s in repeats):.0f} upstream calls and "
          f"{statistics.mean(s.tokens for s in repeats):.0f} tokens each (the cached run made "
          f"{figures['cached_run'].calls} calls, {figures['cached_run'].tokens} tokens). Answered during the outage "
          f"and stored later: {sum(not s.stored for s in down + repeats)} of {len(down) + len(repeats)}; all "
          f"stored {figures['stored_after_s']:.1f} s after PostgreSQL was back. Cache circuit: "
          f"{figures['circuit']['failures']} failed lookups, {figures['circuit']['skipped']} skipped.\n")


def print_sqlite(figures: dict[str, Any]) -> None:
    unlocked, locked = figures["unlocked"], figures["locked"]
    normal = median(unlocked)
    print(f"### SQLite locked by another process: {len(locked)} cached questions asked again while it holds "
          "the write lock\n")
    print("| # | hit, unlocked | locked | excess over the unlocked median | outcome, locked |")
    print("|---:|---:|---:|---:|---|")
    for n, (free, held) in enumerate(zip(unlocked, locked, strict=True)):
        print(f"| {n + 1} | {free.seconds * 1000:.1f} ms | {held.seconds * 1000:.1f} ms | "
              f"{held.seconds - normal:+.3f} s | {outcome(held)} |")
    print(f"\nA hit unlocked (median): {normal * 1000:.1f} ms. Locked: {sum(s.hit for s in locked)} of {len(locked)} "
          f"hits; over the unlocked median the first took {locked[0].seconds - normal:+.3f} s (its row's writer "
          f"asked for the lock for {LOCK_PROBE_S:g} s, then said it was held elsewhere), every later one at most "
          f"{max(s.seconds for s in locked[1:]) - normal:+.3f} s (target +{LATER_TARGET_S:g} s for every hit); all "
          f"stored {figures['stored_after_s']:.1f} s after the lock was released.\n")


def meets_targets(results: dict[str, Any]) -> dict[str, bool]:
    """Whether each part met the issue's targets."""
    met = {}
    if "postgresql" in results:
        pg = results["postgresql"]
        normal = median(pg["up"])
        later = [s.seconds - normal for s in pg["down"][1:] + pg["repeats"]]
        met["postgresql"] = pg["down"][0].seconds - normal <= FIRST_TARGET_S and max(later) <= LATER_TARGET_S
    if "sqlite" in results:
        lite = results["sqlite"]
        normal = median(lite["unlocked"])
        met["sqlite"] = max(s.seconds for s in lite["locked"]) - normal <= LATER_TARGET_S
    return met


def parse_parts(text: str) -> list[str]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or any(part not in PARTS for part in parts):
        raise argparse.ArgumentTypeError(f"expected some of {', '.join(PARTS)} (comma-separated), got {text!r}")
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20, help="questions per phase (at least 2)")
    parser.add_argument("--parts", type=parse_parts, default=list(PARTS), help="postgresql, sqlite or both")
    parser.add_argument("--latency", type=float, default=0.05,
                        help="the fake upstream's seconds per reply (0.05: a run takes about 0.25 s, and an outage "
                             "of 40 questions outlasts the cache circuit's first pause)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of tables")
    args = parser.parse_args()
    if args.questions < 2:
        parser.error("--questions must be at least 2 (the first question of an outage and a later one)")
    if "postgresql" in args.parts and find_pg_bindir() is None:
        parser.error("--parts postgresql needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql, or set "
                     "COUNCIL_PG_BINDIR)")
    when = datetime.now(UTC)
    folder = Path(tempfile.mkdtemp(prefix="council-bench-cache-outage-"))
    results: dict[str, Any] = {}
    with fake_upstream("--latency", str(args.latency)) as upstream:
        if "postgresql" in args.parts:
            with PostgresServer() as server:
                results["postgresql"] = asyncio.run(postgres_part(upstream.url, server, args.questions))
        if "sqlite" in args.parts:
            results["sqlite"] = asyncio.run(sqlite_part(upstream.url, folder, args.questions))
    machine = (f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}, Python "
               f"{platform.python_version()}")
    met = meets_targets(results)
    if args.json:
        print(json.dumps({"measured_at": when.isoformat(timespec="seconds"), "machine": machine,
                          "questions": args.questions, "upstream_latency_s": args.latency, "meets_targets": met,
                          **{part: {key: ([asdict(s) for s in value] if isinstance(value, list)
                                          else asdict(value) if isinstance(value, Sample) else value)
                                    for key, value in figures.items()}
                             for part, figures in results.items()}}, indent=2))
        return
    print(f"# Result cache during a database outage, {when:%Y-%m-%d %H:%M} UTC\n")
    print(f"Machine: {machine}. Fake upstream latency {args.latency:g} s; storage.critical_wait_s 2 s, "
          "cache.outage_pause_s 5 s (the defaults).\n")
    if "postgresql" in results:
        print_postgres(results["postgresql"])
    if "sqlite" in results:
        print_sqlite(results["sqlite"])
    print("Targets met: " + ", ".join(f"{part.replace('_', ' ')} {'yes' if ok else 'no'}" for part, ok in met.items()))


if __name__ == "__main__":
    main()
