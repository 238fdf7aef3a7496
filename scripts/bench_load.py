"""Load benchmark with faults: does `council serve` answer and store every request on its default settings?

Three processes on this machine: the scripted fake upstream, which answers a
random share of calls with HTTP 500 and HTTP 429 + ``Retry-After`` (5% and 2%
by default); `council serve` with 4 members and a chairman on it and every
other setting at its default (run limit, admission queue, retries, deadlines,
storage); and this load generator, which sends chat completions (model
``council``) from N concurrent clients over real HTTP on 127.0.0.1, every
fifth one streamed.

    .venv/bin/python scripts/bench_load.py [--clients 100] [--requests 1000] [--fault-500 0.05] [--fault-429 0.02]

It prints what a user would check: answers with content, HTTP statuses, runs
stored against requests, duplicate run ids, throughput, latency, and the
server's memory and open descriptors before and after.
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
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import MEMBERS, fake_upstream
from bench_server import free_port, wait_healthy

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


def write_config(folder: Path, upstream_url: str, port: int) -> Path:
    """Members on the fake upstream; the port and database are the only settings given."""
    members = "".join(
        f"  - {{name: {name}, provider: openai, model: model-{name}, base_url: '{upstream_url}'}}\n" for name in MEMBERS
    )
    path = folder / "council.yaml"
    path.write_text(f"members:\n{members}chairman: alpha\nserver: {{port: {port}}}\n"
                    f"storage: {{path: '{folder / 'server.db'}'}}\n", encoding="utf-8")
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


def stored_runs(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT run_id, status FROM runs"))


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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
