"""Load benchmark with faults: does `council serve` answer and store every request on its default settings?

Three processes on this machine: the scripted fake upstream, which answers a
random share of calls with HTTP 500 and HTTP 429 + ``Retry-After`` (5% and 2%
by default); `council serve` with 4 members and a chairman on it and every
other setting at its default (run limit, admission queue, retries, deadlines,
storage); and this load generator, which sends chat completions (model
``council``) from N concurrent clients over real HTTP on 127.0.0.1, every
fifth one streamed.

    .venv/bin/python scripts/bench_load.py [--clients 100] [--requests 1000] [--fault-500 0.05] [--fault-429 0.02]
    .venv/bin/python scripts/bench_load.py --outage 10 [--outage-at 3]

It prints what a user would check: answers with content, HTTP statuses, runs
stored against requests, duplicate run ids, throughput, latency, and the
server's memory and open descriptors before and after.

``--outage S`` stores on a private PostgreSQL server instead of SQLite and
sends the load twice: once as it is, then with PostgreSQL stopped
(``pg_ctl stop -m fast``) ``--outage-at`` seconds into the load for S
seconds. It prints both latencies (p99 is what an outage would raise), how
long after PostgreSQL was back every run answered was stored, and the
server's storage log lines (an outage is logged once, not per write).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import MEMBERS, fake_upstream
from bench_server import free_port, wait_healthy

from council.testing.postgres import PostgresServer

QUESTION = [{"role": "user", "content": "Why does ice float on water?"}]


@dataclass
class Outcome:
    """What the clients saw."""

    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    answered: int = 0
    streamed: int = 0
    run_ids: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    problems: collections.Counter[str] = field(default_factory=collections.Counter)
    wall_s: float = 0.0


def write_config(folder: Path, upstream_url: str, port: int, database_url: str | None = None) -> Path:
    """Members on the fake upstream; the port and database are the only settings given."""
    members = "".join(
        f"  - {{name: {name}, provider: openai, model: model-{name}, base_url: '{upstream_url}'}}\n" for name in MEMBERS
    )
    storage = f"url: '{database_url}'" if database_url else f"path: '{folder / 'server.db'}'"
    path = folder / "council.yaml"
    path.write_text(f"members:\n{members}chairman: alpha\nserver: {{port: {port}}}\n"
                    f"storage: {{{storage}}}\n", encoding="utf-8")
    return path


def process_figures(pid: int) -> tuple[float, int]:
    """The process's resident set (MB) and open file descriptors now."""
    rss = next(int(line.split()[1]) / 1024 for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


async def read_stream(response: aiohttp.ClientResponse) -> tuple[str, bool, str | None]:
    """The streamed content, whether ``[DONE]`` came, and any error event."""
    content, done, error = [], False, None
    async for raw in response.content:
        line = raw.decode().strip()
        if not line.startswith("data: "):
            continue
        data = line.removeprefix("data: ")
        if data == "[DONE]":
            done = True
            continue
        chunk = json.loads(data)
        if "error" in chunk:
            error = chunk["error"].get("code") or "error"
        for choice in chunk.get("choices", []):
            content.append(choice.get("delta", {}).get("content") or "")
    return "".join(content), done, error


async def one_request(http: aiohttp.ClientSession, url: str, index: int, outcome: Outcome) -> None:
    stream = index % 5 == 4
    body = {"model": "council", "messages": QUESTION, "stream": stream}
    started = time.perf_counter()
    try:
        async with http.post(url + "/v1/chat/completions", json=body) as response:
            outcome.statuses[response.status] += 1
            run_id = response.headers.get("x-council-run-id")
            if response.status != 200:
                await response.read()
                return
            if stream:
                outcome.streamed += 1
                content, done, error = await read_stream(response)
                if error:
                    outcome.problems[f"stream error {error}"] += 1
                if not done:
                    outcome.problems["stream without [DONE]"] += 1
            else:
                content = (await response.json())["choices"][0]["message"]["content"]
            if content.strip():
                outcome.answered += 1
            else:
                outcome.problems["empty content"] += 1
            if run_id:
                outcome.run_ids.append(run_id)
            else:
                outcome.problems["no x-council-run-id"] += 1
    except (TimeoutError, aiohttp.ClientError) as error:
        outcome.problems[f"client error {type(error).__name__}"] += 1
    finally:
        outcome.latencies.append(time.perf_counter() - started)


async def load(url: str, clients: int, requests: int) -> Outcome:
    outcome = Outcome()
    next_index = iter(range(requests))
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients), timeout=timeout) as http:
        async def client() -> None:
            for index in next_index:
                await one_request(http, url, index, outcome)

        wall = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        outcome.wall_s = time.perf_counter() - wall
    return outcome


def stored_runs(db: Path | str) -> dict[str, str]:
    """Every stored run's status, from the SQLite file or the PostgreSQL URL."""
    if isinstance(db, str):
        import psycopg

        with psycopg.connect(db) as connection:
            return dict(connection.execute("SELECT run_id, status FROM runs").fetchall())
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT run_id, status FROM runs"))


@dataclass
class Outage:
    """PostgreSQL stopped during the load: when, for how long, and when every answered run was stored."""

    server: PostgresServer
    at_s: float
    length_s: float
    metrics_url: str
    stopped_at: float = 0.0
    back_at: float = 0.0
    peak_pending: float = 0.0
    drained_s: float = 0.0  # after PostgreSQL was back, until no write waited any more

    async def play(self) -> None:
        await asyncio.sleep(self.at_s)
        await asyncio.to_thread(self.server.halt)
        self.stopped_at = time.monotonic()
        while time.monotonic() - self.stopped_at < self.length_s:
            self.peak_pending = max(self.peak_pending, await asyncio.to_thread(self.pending))
            await asyncio.sleep(0.1)
        await asyncio.to_thread(self.server.resume)
        self.back_at = time.monotonic()
        while await asyncio.to_thread(self.pending) > 0:
            await asyncio.sleep(0.05)
        self.drained_s = time.monotonic() - self.back_at

    def pending(self) -> float:
        with urllib.request.urlopen(self.metrics_url, timeout=10) as response:
            lines = response.read().decode().splitlines()
        return next(float(line.split()[1]) for line in lines if line.startswith("council_storage_pending_writes "))


async def load_with_outage(url: str, clients: int, requests: int, outage: Outage) -> Outcome:
    played = asyncio.ensure_future(outage.play())
    outcome = await load(url, clients, requests)
    await played
    return outcome


def wait_stored(database: str, run_ids: set[str], since: float, limit_s: float = 120) -> tuple[int, float]:
    """Poll until every run in ``run_ids`` is stored complete: (how many are, seconds after ``since``)."""
    while True:
        runs = stored_runs(database)
        complete = sum(runs.get(run_id) == "complete" for run_id in run_ids)
        if complete == len(run_ids) or time.monotonic() - since > limit_s:
            return complete, time.monotonic() - since
        time.sleep(0.2)


def percentile(latencies: list[float], p: float) -> float:
    """The ``p`` quantile of ``latencies`` in ms (nearest rank)."""
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] * 1000


def faults_served(upstream_url: str) -> dict[str, int]:
    with urllib.request.urlopen(upstream_url.removesuffix("/v1") + "/_fake/faults", timeout=5) as response:
        return json.load(response)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--fault-500", type=float, default=0.05, help="share of upstream calls answered with 500")
    parser.add_argument("--fault-429", type=float, default=0.02, help="share answered with 429 and Retry-After: 1")
    parser.add_argument("--seed", type=int, default=1, help="seed of the upstream's fault draw")
    parser.add_argument("--idle", type=float, default=45.0,
                        help="seconds to wait after the load before measuring again (idle pooled connections close)")
    parser.add_argument("--outage", type=float, default=0.0,
                        help="seconds PostgreSQL is stopped during a second load (0: no outage, SQLite as before)")
    parser.add_argument("--outage-at", type=float, default=3.0, help="seconds into the load PostgreSQL stops")
    args = parser.parse_args()
    if args.outage > 0:
        outage_main(args)
        return
    folder = Path(tempfile.mkdtemp(prefix="council-bench-load-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    faults = ("--fault-500", str(args.fault_500), "--fault-429", str(args.fault_429), "--seed", str(args.seed))
    with fake_upstream("--latency", "0", *faults) as upstream:
        config = write_config(folder, upstream.url, port)
        env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")}
        server = subprocess.Popen([sys.executable, "-m", "council", "serve", "--config", str(config)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_healthy(url, server)
            before = process_figures(server.pid)
            outcome = asyncio.run(load(url, args.clients, args.requests))
            after = process_figures(server.pid)
            time.sleep(args.idle)
            idle = process_figures(server.pid)
            served = faults_served(upstream.url)
        finally:
            server.terminate()
            server.wait(timeout=60)
    runs = stored_runs(folder / "server.db")
    run_ids = outcome.run_ids
    complete = sum(runs.get(run_id) == "complete" for run_id in set(run_ids))
    latencies = sorted(outcome.latencies)

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, round(p * (len(latencies) - 1)))] * 1000

    statuses = ", ".join(f"{status}: {count}" for status, count in sorted(outcome.statuses.items()))
    print(f"| Load: {args.requests} council completions, {args.clients} concurrent clients, "
          f"{outcome.streamed} streamed, default server settings | |")
    print("|---|---|")
    print(f"| Upstream faults served | {served.get('500', 0)} × 500, {served.get('429', 0)} × 429 "
          f"({args.fault_500:.0%} and {args.fault_429:.0%} of calls) |")
    print(f"| Answered with content | {outcome.answered} / {args.requests} |")
    print(f"| HTTP statuses | {statuses} |")
    print(f"| Runs stored complete / requests | {complete} / {args.requests} ({len(runs)} rows in the database) |")
    print(f"| Duplicate run ids | {len(run_ids) - len(set(run_ids))} |")
    print(f"| Throughput | {args.requests / outcome.wall_s:.1f} requests/s ({outcome.wall_s:.1f} s) |")
    print(f"| Latency | p50 {pct(0.5):.0f} ms, p95 {pct(0.95):.0f} ms |")
    print(f"| Server RSS before / after | {before[0]:.0f} MB / {after[0]:.0f} MB ({after[0] - before[0]:+.0f} MB) |")
    print(f"| Server open descriptors before / after / {args.idle:g} s idle | {before[1]} / {after[1]} / {idle[1]} "
          "(the difference after the load is pooled keep-alive connections to the upstream) |")
    print(f"| Server RSS after {args.idle:g} s idle | {idle[0]:.0f} MB |")
    print(f"| Server exit code after SIGTERM | {server.returncode} |")
    if outcome.problems:
        print(f"| Problems | {dict(outcome.problems)} |")


def outage_main(args: argparse.Namespace) -> None:
    """The load twice on PostgreSQL, the second time with PostgreSQL stopped for ``args.outage`` seconds."""
    folder = Path(tempfile.mkdtemp(prefix="council-bench-outage-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    faults = ("--fault-500", str(args.fault_500), "--fault-429", str(args.fault_429), "--seed", str(args.seed))
    log = folder / "server.log"
    with PostgresServer() as postgres, fake_upstream("--latency", "0", *faults) as upstream:
        database = postgres.create_database("council")
        config = write_config(folder, upstream.url, port, database)
        env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")}
        with log.open("w") as stderr:
            server = subprocess.Popen([sys.executable, "-m", "council", "serve", "--config", str(config)],
                                      env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            wait_healthy(url, server)
            steady = asyncio.run(load(url, args.clients, args.requests))
            outage = Outage(postgres, args.outage_at, args.outage, url + "/metrics")
            hit = asyncio.run(load_with_outage(url, args.clients, args.requests, outage))
            stored, after_s = wait_stored(database, set(hit.run_ids), outage.back_at)
            metrics = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
        finally:
            server.terminate()
            server.wait(timeout=60)
    storage_lines = [line for line in log.read_text().splitlines() if "storage_" in line]
    figures = {line.split()[0]: line.split()[1] for line in metrics.splitlines()
               if line.startswith("council_storage_")}
    print(f"| Load: {args.requests} council completions twice, {args.clients} concurrent clients, PostgreSQL; "
          f"the second time stopped {args.outage_at:g} s in for {args.outage:g} s | without outage | with outage |")
    print("|---|---|---|")
    rows: list[tuple[str, Callable[[Outcome], str]]] = [
        ("HTTP statuses", lambda o: ", ".join(f"{k}: {v}" for k, v in sorted(o.statuses.items()))),
        ("Answered with content", lambda o: f"{o.answered} / {args.requests}"),
        ("Latency p50 / p95 / p99 (ms)", lambda o: " / ".join(
            f"{percentile(o.latencies, p):.0f}" for p in (0.5, 0.95, 0.99))),
        ("Slowest request (ms)", lambda o: f"{max(o.latencies) * 1000:.0f}"),
        ("Throughput", lambda o: f"{args.requests / o.wall_s:.1f} requests/s")]
    for name, pick in rows:
        print(f"| {name} | {pick(steady)} | {pick(hit)} |")
    p99_gap = (percentile(hit.latencies, 0.99) - percentile(steady.latencies, 0.99)) / 1000
    print(f"| p99 with outage minus without | | {p99_gap:+.2f} s |")
    print(f"| Writes waiting for PostgreSQL | | at most {outage.peak_pending:.0f}; none {outage.drained_s:.1f} s after "
          "it was back |")
    print(f"| Runs answered in the outage's load stored complete | | {stored} / {len(set(hit.run_ids))} "
          f"(checked {after_s:.1f} s after PostgreSQL was back) |")
    print(f"| /metrics after | | {', '.join(f'{k} {v}' for k, v in figures.items())} |")
    print(f"| Server storage log lines | | {len(storage_lines)}: "
          f"{', '.join(sorted({w for line in storage_lines for w in line.split() if w.startswith('storage_')}))} |")
    problems = steady.problems + hit.problems
    if problems:
        print(f"| Problems | {dict(problems)} | |")


if __name__ == "__main__":
    main()
