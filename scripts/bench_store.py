"""Storage benchmark: runs written per second, per-stage write latency, bytes per run, CPU per run.

For SQLite and PostgreSQL (a throwaway server started here when its binaries
are found, or --pg-url), it writes typical runs (the built-in simulated
council: 4 members, a chairman, the default rubric) stage by stage, as the
orchestrator does, and compares with how release 0.1.0 stored a run (the
whole result serialized and rewritten after each of 4 stages). Then it runs
the pipeline benchmark's throughput test with no store, SQLite and
PostgreSQL, to show what storage costs a whole question.

    .venv/bin/python scripts/bench_store.py [--runs 1000] [--questions 300] [--pg-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

import yaml

from council import Council, CouncilConfig, CouncilResult
from council.config import simulated_config_path
from council.storage.run_records import Stage
from council.storage.store import Store, prepare_stage

STAGES: tuple[Stage, ...] = ("started", "answers", "ranking", "finished")


async def typical_results(count: int) -> list[CouncilResult]:
    """Finished runs of the simulated council, answering at once."""
    raw = yaml.safe_load(simulated_config_path().read_text())
    for member in raw["members"]:
        member["persona"]["latency_ms"] = 0
    async with Council(CouncilConfig.model_validate(raw), store=False) as council:
        return [await council.ask(f"Why does question {n} matter?") for n in range(count)]


def stage_states(result: CouncilResult) -> list[CouncilResult]:
    """The run as it stood when each stage was written (as the orchestrator writes it)."""
    started = result.model_copy(update={"answers": [], "reviews": [], "ranking": [], "final_answer": None,
                                        "status": "running", "calibration": []})
    answered = result.model_copy(update={"reviews": [], "ranking": [], "final_answer": None, "status": "running"})
    ranked = result.model_copy(update={"final_answer": None, "status": "running"})
    return [started, answered, ranked, result]


def renamed(states: list[CouncilResult]) -> list[CouncilResult]:
    run_id = uuid.uuid4().hex
    return [state.model_copy(update={"run_id": run_id}) for state in states]


def legacy_writes(path: Path, runs: list[list[CouncilResult]]) -> tuple[float, float]:
    """Release 0.1.0: the whole result, serialized and INSERT OR REPLACEd after every stage. (CPU s/run, bytes/run)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, created_at TEXT, updated_at TEXT, status TEXT, "
               "question TEXT, top_member TEXT, degraded INTEGER, simulated INTEGER, result_json TEXT)")
    cpu = time.process_time()
    for states in runs:
        for state in states:
            db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (state.run_id, state.created_at.isoformat(), state.created_at.isoformat(), state.status,
                        "q", None, 0, 1, state.model_dump_json()))
    cpu = time.process_time() - cpu
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    db.close()
    return cpu / len(runs), path.stat().st_size / len(runs)


def stored_bytes(store: Store, count: int) -> tuple[float, float]:
    """Database bytes per run, as written and once compacted: the SQLite file after a checkpoint and after
    VACUUM, or PostgreSQL's size of the run tables and their indexes before and after VACUUM FULL.

    Compacted is what a database holds in the long run: each stage rewrites its run's summary row, and the
    old versions (PostgreSQL's dead tuples, SQLite's free pages) are space that later runs reuse.
    """
    if store.backend == "sqlite":
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        written = Path(store.path).stat().st_size / count
        store.db.execute("VACUUM")
        return written, Path(store.path).stat().st_size / count
    size = "SELECT pg_total_relation_size('runs') + pg_total_relation_size('run_stages')"
    row = store.db.fetchone(size)
    written = float(row[0] if row else 0) / count
    store.db.execute("VACUUM FULL runs, run_stages")
    row = store.db.fetchone(size)
    return written, float(row[0] if row else 0) / count


def sync_writes(store: Store, runs: list[list[CouncilResult]]) -> dict[str, float]:
    """One run after another, each stage prepared and written as the orchestrator does (without the thread hop)."""
    latency: dict[str, list[float]] = {stage: [] for stage in STAGES}
    payload = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for states in runs:
        for stage, state in zip(STAGES, states, strict=True):
            started = time.perf_counter()
            write = prepare_stage(state, stage)
            store.write_stage(write)
            latency[stage].append(time.perf_counter() - started)
            payload += len(write.payload)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    figures = {"runs_per_s": len(runs) / wall, "cpu_ms": cpu / len(runs) * 1000, "payload": payload / len(runs)}
    for stage, times in latency.items():
        times.sort()
        figures[f"{stage}_p50"] = statistics.median(times) * 1000
        figures[f"{stage}_p95"] = times[round(0.95 * (len(times) - 1))] * 1000
    return figures


async def concurrent_writes(store: Store, runs: list[list[CouncilResult]], in_flight: int) -> tuple[float, float]:
    """Runs written through the group-commit writer as the orchestrator does, ``in_flight`` at once.

    (runs/s, CPU ms per run): the early stages queued without waiting, the last one awaited.
    """
    slots = asyncio.Semaphore(in_flight)

    async def one(states: list[CouncilResult]) -> None:
        async with slots:
            queued = [store.queue_stage(prepare_stage(state, stage), soon=False)
                      for stage, state in zip(STAGES[:-1], states, strict=False)]
            await store.queue_stage(prepare_stage(states[-1], STAGES[-1]))
            await asyncio.gather(*queued)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(states) for states in runs))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return len(runs) / wall, cpu / len(runs) * 1000


def pipeline_rates(locations: dict[str, str], questions: int) -> dict[str, tuple[float, float]]:
    """bench_pipeline's throughput test (50 in flight, 0 ms upstream) per storage backend."""
    sys.path.insert(0, str(Path(__file__).parent))
    import bench_pipeline

    rates = {}
    with bench_pipeline.fake_upstream("--latency", "0") as upstream:
        for name, location in locations.items():
            rate, cpu, failures = asyncio.run(bench_pipeline.measure_throughput(upstream.url, location, questions, 50))
            assert failures == 0, f"{failures} runs failed on {name}"
            rates[name] = (rate, cpu * 1000)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=300, help="questions per pipeline throughput test")
    parser.add_argument("--pg-url", help="an empty PostgreSQL database (default: start a throwaway server)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="council-bench-store-"))
    samples = asyncio.run(typical_results(20))
    shapes = [stage_states(result) for result in samples]
    runs = [renamed(shapes[n % len(shapes)]) for n in range(args.runs)]
    print(f"typical run: {len(samples[0].answers)} members, chairman, default rubric; whole result "
          f"{statistics.mean(len(r.model_dump_json()) for r in samples) / 1024:.1f} KB of JSON; {args.runs} runs "
          f"on {os.cpu_count()} cores")

    legacy_cpu, legacy_bytes = legacy_writes(folder / "legacy.db", runs)
    with ExitStack() as stack:
        locations = {"sqlite": str(folder / "council.db")}
        if args.pg_url:
            locations["postgresql"] = args.pg_url
        else:
            from council.testing.postgres import PostgresServer, find_pg_bindir

            bindir = find_pg_bindir()
            if bindir is None:
                print("PostgreSQL: skipped (no initdb/pg_ctl found; pass --pg-url)")
            else:
                server = stack.enter_context(PostgresServer(bindir))
                locations["postgresql"] = server.create_database("bench")
        print()
        print("| Backend | Runs written/s (one at a time) | 50 in flight, group commit "
              "| Storage CPU per run (one at a time) "
              "| p50 / p95 ms per stage: started, answers, ranking, finished | Bytes per run (payload; database) |")
        print("|---|---|---|---|---|---|")
        print(f"| 0.1.0 (SQLite, whole result x4) | {1000 / (legacy_cpu * 1000 or 1):.0f} (CPU bound) | - | "
              f"{legacy_cpu * 1000:.2f} ms | - | -; {legacy_bytes / 1024:.1f} KB |")
        for name, location in locations.items():
            store = Store(location, pool_size=10)
            try:
                figures = sync_writes(store, runs[: len(runs) // 2])
                rate, cpu_ms = asyncio.run(concurrent_writes(store, runs[len(runs) // 2:], 50))
                written, compacted = stored_bytes(store, len(runs))
            finally:
                store.close()
            stages = ", ".join(f"{figures[f'{s}_p50']:.2f}/{figures[f'{s}_p95']:.2f}" for s in STAGES)
            print(f"| {name} | {figures['runs_per_s']:.0f} | {rate:.0f} runs/s, {cpu_ms:.2f} ms CPU/run | "
                  f"{figures['cpu_ms']:.2f} ms | {stages} | "
                  f"{figures['payload'] / 1024:.1f} KB; {compacted / 1024:.1f} KB "
                  f"({written / 1024:.1f} KB as written) |")
        print()
        fresh = {"no store": "none", "sqlite": str(folder / "pipeline.db")}
        if "postgresql" in locations:
            fresh["postgresql"] = locations["postgresql"]
        rates = pipeline_rates(fresh, args.questions)
        print("| Pipeline throughput (bench_pipeline: 50 in flight, 0 ms upstream) | questions/s | CPU ms/question |")
        print("|---|---|---|")
        for name, (rate, cpu_ms) in rates.items():
            print(f"| {name} | {rate:.0f} | {cpu_ms:.1f} |")


if __name__ == "__main__":
    main()
