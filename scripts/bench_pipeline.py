"""Pipeline benchmark: end-to-end latency, throughput and straggler handling.

The upstream is the fake LLM server, run in its own process (so it does not
share the council's event loop), speaking the OpenAI API over real HTTP on
127.0.0.1. Every council run is complete: 4 members answer, each reviews the
other 3, aggregation, a chairman writes the final answer, and every stage is
written to a SQLite database.

    .venv/bin/python scripts/bench_pipeline.py [--questions 500] [--concurrency 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from council.config import CouncilConfig
from council.pipeline.orchestrator import Council
from council.storage.store import Store

MEMBERS = ("alpha", "beta", "gamma", "delta")



class Upstream:
    """The fake upstream process: its URL and its CPU time so far."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url

    def cpu_seconds(self) -> float:
        """User plus system CPU of the upstream process (Linux /proc; 0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def fake_upstream(*args: str):
    """Start the scripted fake upstream in a subprocess; yield it."""
    process = subprocess.Popen([sys.executable, "-m", "council.testing.scripted", "--no-record", *args],
                               stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("PORT "):
            raise RuntimeError(f"the fake upstream did not start: {line!r}")
        yield Upstream(process, f"http://127.0.0.1:{int(line.split()[1])}/v1")
    finally:
        process.terminate()
        process.wait(timeout=10)


def open_store(db: str | Path) -> Store | bool:
    """The run store at ``db`` (a SQLite path or a PostgreSQL URL); ``none`` runs without one."""
    return False if str(db) == "none" else Store(db)


def council_config(base_url: str, db: str | Path, *, stage_deadline_s: float = 30.0) -> CouncilConfig:
    """Four members and a chairman on the fake upstream."""
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}", "base_url": base_url}
                    for name in MEMBERS],
        "chairman": "alpha",
        "stages": {"stage_deadline_s": stage_deadline_s, "member_timeout_s": 30},
    })


async def measure_latency(base_url: str, db: Path, questions: int) -> list[float]:
    """Seconds per question, one question at a time."""
    async with Council(council_config(base_url, db), store=open_store(db), environ={}) as council:
        await council.ask("warm-up question?")
        times = []
        for index in range(questions):
            started = time.perf_counter()
            result = await council.ask(f"Latency question {index}?")
            times.append(time.perf_counter() - started)
            assert result.status == "complete" and not result.degraded, result.degraded_reasons
    return times


async def measure_throughput(base_url: str, db: str | Path, questions: int,
                             concurrency: int) -> tuple[float, float, int]:
    """Questions per second and CPU seconds per question with ``concurrency`` runs in flight."""
    async with Council(council_config(base_url, db), store=open_store(db), environ={}) as council:
        await council.ask("warm-up question?")
        semaphore = asyncio.Semaphore(concurrency)
        failures = 0

        async def one(index: int) -> None:
            nonlocal failures
            async with semaphore:
                result = await council.ask(f"Throughput question {index}?")
                failures += result.status != "complete" or result.degraded

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(questions)))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return questions / wall, cpu / questions, failures


async def measure_straggler(base_url: str, db: Path) -> tuple[float, str]:
    """Stage 1 time and the slow member's status when one member takes 5 s against a 1 s deadline."""
    config = council_config(base_url, db, stage_deadline_s=1.0)
    async with Council(config, store=open_store(db), environ={}) as council:
        result = await council.ask("Straggler question?")
    delta = result.answer("delta")
    status = f"{delta.status} ({delta.error.reason})" if delta and delta.error else str(delta and delta.status)
    return result.timings.answers_ms / 1000, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-questions", type=int, default=20)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="council-bench-"))

    with fake_upstream("--latency", "0.2") as upstream:
        times = asyncio.run(measure_latency(upstream.url, folder / "latency.db", args.latency_questions))
    with fake_upstream("--latency", "0") as upstream:
        before = upstream.cpu_seconds()
        rate, cpu, failures = asyncio.run(
            measure_throughput(upstream.url, folder / "tput.db", args.questions, args.concurrency))
        upstream_cpu = (upstream.cpu_seconds() - before) / (args.questions + 1)
    with fake_upstream("--latency", "0", "--slow", "model-delta=5") as upstream:
        stage1_s, delta_status = asyncio.run(measure_straggler(upstream.url, folder / "straggler.db"))

    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print("| Measurement | Result |")
    print("|---|---|")
    print(f"| Latency, 4 members + chairman, 200 ms per upstream call (floor 0.60 s) | "
          f"median {statistics.median(times):.3f} s, p95 {p95:.3f} s over {len(times)} questions |")
    print(f"| Throughput, {args.concurrency} concurrent, 0 ms upstream | {rate:.0f} questions/s, "
          f"{cpu * 1000:.1f} ms CPU per question in the council process ({upstream_cpu * 1000:.1f} ms in the fake "
          f"upstream), {failures} failed of {args.questions} |")
    print(f"| Straggler: one member takes 5 s, stage deadline 1 s | Stage 1 ended at {stage1_s:.3f} s; "
          f"the slow member is {delta_status} |")


if __name__ == "__main__":
    main()
