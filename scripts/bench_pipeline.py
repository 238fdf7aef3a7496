"""Pipeline benchmark: end-to-end latency, throughput, CPU per question and straggler handling.

The upstream is the fake LLM server, run in its own process (so it does not
share the council's event loop), speaking the OpenAI API over real HTTP on
127.0.0.1. Every council run is complete: 4 members answer, each reviews the
other 3, aggregation, a chairman writes the final answer, and every stage is
written to a SQLite database.

Each figure is the median of ``--repeats`` runs (3 by default). Beside the
council, a bare aiohttp client makes the same 9 upstream calls per question
(4 answers, then 4 reviews, concurrently; then one streamed chairman call):
its CPU per question is the floor any orchestrator pays for the HTTP alone,
and the ratio to it holds still while the machine's speed drifts.

The process collects garbage as ``council serve`` does (start-up objects
frozen, young collections every 10,000 allocations); ``--default-gc`` keeps
Python's defaults, as an application embedding Council without tuning has.

    .venv/bin/python scripts/bench_pipeline.py [--questions 500] [--concurrency 50] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import aiohttp

from council.config import CouncilConfig
from council.pipeline.orchestrator import Council
from council.server.listen import tune_garbage_collector
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


async def bare_call(session: aiohttp.ClientSession, base_url: str, model: str, text: str,
                    stream: bool = False) -> str:
    """One chat completion as a bare client makes it: post, read, no retries, no records."""
    body = {"model": model, "messages": [{"role": "user", "content": text}], "stream": stream}
    async with session.post(f"{base_url}/chat/completions", json=body) as response:
        response.raise_for_status()
        if not stream:
            return str((await response.json())["choices"][0]["message"]["content"])
        parts = []
        async for line in response.content:
            if line.startswith(b"data: {"):
                parts.append(json.loads(line[6:])["choices"][0]["delta"].get("content") or "")
        return "".join(parts)


async def bare_question(session: aiohttp.ClientSession, base_url: str, index: int) -> None:
    """The council's 9 calls for one question: 4 answers, then 4 reviews, at once; then a streamed final answer."""
    question = f"Throughput question {index}?"
    answers = await asyncio.gather(*(bare_call(session, base_url, f"model-{m}", question) for m in MEMBERS))
    await asyncio.gather(*(bare_call(session, base_url, f"model-{m}", "Review these: " + " | ".join(answers))
                           for m in MEMBERS))
    await bare_call(session, base_url, "model-alpha", "Write the final answer: " + answers[0], stream=True)


async def measure_bare_client(base_url: str, questions: int, concurrency: int) -> tuple[float, float]:
    """Questions per second and CPU seconds per question of a bare aiohttp client making the council's 9 calls."""

    async def one(session: aiohttp.ClientSession, index: int) -> None:
        async with semaphore:
            await bare_question(session, base_url, index)

    semaphore = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100)) as session:
        await one(session, -1)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one(session, i) for i in range(questions)))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return questions / wall, cpu / questions


async def measure_bare_latency(base_url: str, questions: int) -> list[float]:
    """Seconds per question of the bare client, one question at a time: the floor as this upstream serves it."""
    async with aiohttp.ClientSession() as session:
        await bare_question(session, base_url, -1)
        times = []
        for index in range(questions):
            started = time.perf_counter()
            await bare_question(session, base_url, index)
            times.append(time.perf_counter() - started)
    return times


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
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--default-gc", action="store_true", help="keep Python's garbage-collector defaults")
    parser.add_argument("--parts", default="latency,throughput,straggler",
                        help="which measurements to make, comma-separated (default: all three)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if not parts or parts - {"latency", "throughput", "straggler"}:
        parser.error(f"--parts: expected some of latency, throughput, straggler; got {args.parts!r}")
    if not args.default_gc:
        tune_garbage_collector()
    folder = Path(tempfile.mkdtemp(prefix="council-bench-"))
    median = statistics.median

    latency_medians, latency_p95s, bare_latencies = [], [], []
    if "latency" in parts:
        with fake_upstream("--latency", "0.2") as upstream:
            for repeat in range(args.repeats):
                bare_latencies.append(median(asyncio.run(measure_bare_latency(upstream.url,
                                                                              args.latency_questions))))
                times = sorted(asyncio.run(measure_latency(upstream.url, folder / f"latency-{repeat}.db",
                                                           args.latency_questions)))
                latency_medians.append(median(times))
                latency_p95s.append(times[min(len(times) - 1, round(0.95 * (len(times) - 1)))])
    rates, cpus, upstream_cpus, bare_rates, bare_cpus, failures = [], [], [], [], [], 0
    if "throughput" in parts:
        with fake_upstream("--latency", "0") as upstream:
            for repeat in range(args.repeats):
                before = upstream.cpu_seconds()
                rate, cpu, failed = asyncio.run(measure_throughput(upstream.url, folder / f"tput-{repeat}.db",
                                                                   args.questions, args.concurrency))
                upstream_cpus.append((upstream.cpu_seconds() - before) / (args.questions + 1))
                rates.append(rate)
                cpus.append(cpu)
                failures += failed
                bare_rate, bare_cpu = asyncio.run(measure_bare_client(upstream.url, args.questions,
                                                                      args.concurrency))
                bare_rates.append(bare_rate)
                bare_cpus.append(bare_cpu)
    if "straggler" in parts:
        with fake_upstream("--latency", "0", "--slow", "model-delta=5") as upstream:
            stage1_s, delta_status = asyncio.run(measure_straggler(upstream.url, folder / "straggler.db"))

    runs = f"median of {args.repeats} runs" + (", Python's default GC" if args.default_gc else "")
    print("| Measurement | Result |")
    print("|---|---|")
    if "latency" in parts:
        print(f"| Latency, 4 members + chairman, 200 ms per upstream call (floor 0.60 s) | "
              f"median {median(latency_medians):.3f} s (overhead {(median(latency_medians) - 0.6) * 1000:.0f} ms), "
              f"p95 {median(latency_p95s):.3f} s; the bare client's median {median(bare_latencies):.3f} s, so the "
              f"council adds {(median(latency_medians) - median(bare_latencies)) * 1000:.0f} ms; "
              f"{args.latency_questions} questions per run, {runs} |")
    if "throughput" in parts:
        print(f"| Throughput, {args.concurrency} concurrent, 0 ms upstream | {median(rates):.0f} questions/s, "
              f"{median(cpus) * 1000:.1f} ms CPU per question in the council process "
              f"({median(upstream_cpus) * 1000:.1f} ms in the fake upstream); {runs}, "
              f"{failures} failed of {args.questions * args.repeats} |")
        print(f"| Bare aiohttp client, the same 9 calls per question | {median(bare_rates):.0f} questions/s, "
              f"{median(bare_cpus) * 1000:.2f} ms CPU per question: the council spends "
              f"{median(cpus) / median(bare_cpus):.1f}x the bare client's CPU; {runs} |")
    if "straggler" in parts:
        print(f"| Straggler: one member takes 5 s, stage deadline 1 s | Stage 1 ended at {stage1_s:.3f} s; "
              f"the slow member is {delta_status} |")

if __name__ == "__main__":
    main()
