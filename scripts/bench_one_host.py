"""One-host benchmark: concurrent questions when every member sits behind one gateway.

OpenRouter, a LiteLLM proxy or one vLLM server is one host for all the
members behind it, so the connection pool's per-host limit decides how many
of their calls run at once. The upstream is the scripted fake LLM server in
its own process on 127.0.0.1, answering every call after ``--latency-s``
(200 ms); 4 members and a chairman (one of them) all point at it. Each
round asks ``--questions`` (50) questions at once through the Python API and
times the batch; each figure is the median of ``--rounds`` rounds.

The pools compared:

* the old fixed limits, 200 connections and 50 per host (now set explicitly);
* the derived limits with the defaults: 32 runs at once (``server.max_concurrent_runs``)
  times 4 calls in flight per run, 128 per host;
* the derived limits for as many runs as questions (``Council(runs_at_once=50)``,
  or ``server.max_concurrent_runs: 50``): 200 per host.

    .venv/bin/python scripts/bench_one_host.py [--questions 50] [--latency-s 0.2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import council_config, fake_upstream

from council.config import CouncilConfig, TransportConfig
from council.pipeline.orchestrator import Council
from council.storage.store import Store


@dataclass(frozen=True)
class Pool:
    """One way of sizing the connection pool: its label, the transport settings and the runs expected at once."""

    label: str
    transport: dict[str, int]
    runs_at_once: int | None = None

    def config(self, base_url: str, db: Path) -> CouncilConfig:
        """The benchmark council with this pool."""
        config = council_config(base_url, db)
        return config.model_copy(update={"transport": TransportConfig(**self.transport)})

    def limits(self, config: CouncilConfig) -> tuple[int, int]:
        """The total and per-host limits a council with this pool uses."""
        return config.transport.connection_limits(
            (self.runs_at_once or config.server.max_concurrent_runs) * config.calls_in_flight_per_run())


POOLS = (
    Pool("old fixed limits", {"max_connections": 200, "max_connections_per_host": 50}),
    Pool("derived, 32 runs at once (default)", {}),
    Pool("derived, runs_at_once=50", {}, runs_at_once=50),
)


async def one_round(council: Council, questions: int, round_index: int) -> tuple[float, list[float]]:
    """Seconds for ``questions`` asked at once, and each question's own seconds."""
    latencies: list[float] = []

    async def ask(index: int) -> None:
        started = time.perf_counter()
        result = await council.ask(f"Round {round_index}, question {index}: what is 6 x 7?")
        latencies.append(time.perf_counter() - started)
        if result.status != "complete" or result.degraded:
            raise RuntimeError(f"a question did not complete cleanly: {result.status}, {result.degraded_reasons}")

    wall = time.perf_counter()
    await asyncio.gather(*(ask(i) for i in range(questions)))
    return time.perf_counter() - wall, latencies


async def measure(pool: Pool, base_url: str, db: Path, questions: int, rounds: int) -> dict[str, Any]:
    """Median batch time, questions per second and per-question p50/p95 over ``rounds`` rounds."""
    config = pool.config(base_url, db)
    async with Council(config, store=Store(db), environ={}, runs_at_once=pool.runs_at_once) as council:
        await one_round(council, 4, -1)  # warm-up: connections opened, modules loaded
        walls, p50s, p95s = [], [], []
        for index in range(rounds):
            wall, latencies = await one_round(council, questions, index)
            latencies.sort()
            walls.append(wall)
            p50s.append(statistics.median(latencies))
            p95s.append(latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))])
    total, per_host = pool.limits(config)
    wall = statistics.median(walls)
    return {"pool": pool.label, "limits": f"{total} / {per_host}", "wall": wall, "rate": questions / wall,
            "p50": statistics.median(p50s), "p95": statistics.median(p95s)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50, help="questions asked at once (default 50)")
    parser.add_argument("--latency-s", type=float, default=0.2, help="the fake upstream's seconds per call")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per pool; the median is printed")
    args = parser.parse_args()
    if args.questions < 1 or args.rounds < 1 or args.latency_s < 0:
        parser.error("--questions and --rounds must be at least 1, --latency-s at least 0")
    folder = Path(tempfile.mkdtemp(prefix="council-bench-host-"))
    rows = []
    with fake_upstream("--latency", str(args.latency_s)) as upstream:
        for index, pool in enumerate(POOLS):
            rows.append(asyncio.run(measure(pool, upstream.url, folder / f"pool-{index}.db", args.questions,
                                            args.rounds)))
    floor = 3 * args.latency_s  # answers, reviews, then the chairman: three calls one after another
    print(f"{args.questions} questions at once, 4 members + chairman on one host, {args.latency_s * 1000:.0f} ms "
          f"a call (floor {floor:.2f} s a question); median of {args.rounds} rounds")
    print()
    print("| Pool | Limits (total / per host) | Batch | Questions/s | Latency p50 | Latency p95 |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['pool']} | {row['limits']} | {row['wall']:.2f} s | {row['rate']:.1f} | "
              f"{row['p50']:.2f} s | {row['p95']:.2f} s |")


if __name__ == "__main__":
    main()
