"""Instructions per upstream call: Council's provider and transport against a bare aiohttp post.

A question makes 9 upstream calls, and a profile puts half its samples in
HTTP frames; this says how much of that is Council's own. Both sides post
the same chat request (a system line and a user text of about 5 KB, the
size of a review prompt) to the fake upstream at 0 ms, ``--in-flight`` at a
time, and read the answer: Council through ``OpenAIProvider.complete`` (its
request building, deadline, retry bookkeeping, capped read, usage and
``Completion`` record), the bare client through ``session.post`` and
``response.json()``. Each side runs under valgrind's callgrind at two sizes
and the difference is divided by the calls between them, so start-up and
imports cancel out. Only this process is counted: the fake upstream runs in
its own.

    .venv/bin/python scripts/bench_call.py [--small 50] [--large 450] [--in-flight 8]

Needs valgrind (``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_instructions import callgrind_total  # scripts/ is on the path when this runs as a script

HERE = Path(__file__).resolve()
SIDES = ("council", "bare")
USER_TEXT = "Review these answers carefully, criterion by criterion. " * 90  # about 5 KB


def drive(side: str, calls: int, in_flight: int) -> None:
    """Make one warm-up call and then ``calls`` calls, ``in_flight`` at a time (run inside valgrind)."""
    import aiohttp

    sys.path.insert(0, str(HERE.parent))
    import bench_pipeline

    from council.providers import build_providers
    from council.transport.http import Transport
    from council.types import ChatMessage

    messages = [ChatMessage(role="system", content="You are a careful reviewer."),
                ChatMessage(role="user", content=USER_TEXT)]

    async def many(call: Callable[[], Awaitable[object]]) -> None:
        slots = asyncio.Semaphore(in_flight)

        async def one() -> None:
            async with slots:
                await call()

        await one()
        await asyncio.gather(*(one() for _ in range(calls)))

    async def run(url: str) -> None:
        config = bench_pipeline.council_config(url, "none")
        if side == "council":
            async with Transport(config.transport) as transport:
                provider = build_providers(config, transport, {})[bench_pipeline.MEMBERS[0]]
                await many(lambda: provider.complete(messages))
            return
        body = {"model": f"model-{bench_pipeline.MEMBERS[0]}",
                "messages": [{"role": m.role, "content": m.content} for m in messages]}
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100)) as session:
            async def post() -> str:
                async with session.post(f"{url}/chat/completions", json=body) as response:
                    response.raise_for_status()
                    return str((await response.json())["choices"][0]["message"]["content"])

            await many(post)

    with bench_pipeline.fake_upstream("--latency", "0") as upstream:
        asyncio.run(run(upstream.url))


def count(side: str, calls: int, in_flight: int, folder: Path) -> int:
    """Instructions this process executed making ``calls`` calls on ``side``."""
    return callgrind_total([str(HERE), "--drive", side, str(calls), str(in_flight)],
                           folder / f"{side}.{calls}.callgrind", f"{side} with {calls} calls")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=50, help="calls in the smaller run")
    parser.add_argument("--large", type=int, default=450, help="calls in the larger run")
    parser.add_argument("--in-flight", type=int, default=8, help="calls at a time")
    parser.add_argument("--drive", nargs=3, metavar=("SIDE", "CALLS", "IN_FLIGHT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(args.drive[0], int(args.drive[1]), int(args.drive[2]))
        return
    if not 0 < args.small < args.large:
        sys.exit("--small must be at least 1 and less than --large")
    if args.in_flight < 1:
        sys.exit("--in-flight must be at least 1")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    jobs = [(side, calls) for side in SIDES for calls in (args.small, args.large)]
    with tempfile.TemporaryDirectory(prefix="council-callgrind-") as folder, \
            ThreadPoolExecutor(max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        totals = dict(zip(jobs, pool.map(lambda job: count(job[0], job[1], args.in_flight, Path(folder)), jobs),
                          strict=True))
    per_call = {side: (totals[side, args.large] - totals[side, args.small]) / (args.large - args.small)
                for side in SIDES}
    print(f"| Upstream call ({len(USER_TEXT) / 1024:.1f} KB prompt, {args.in_flight} in flight) "
          "| Instructions a call |")
    print("|---|---|")
    print(f"| Council's provider and transport | {per_call['council'] / 1e6:.2f} M |")
    print(f"| bare aiohttp post | {per_call['bare'] / 1e6:.2f} M |")
    print(f"\nCouncil's call takes {per_call['council'] / per_call['bare']:.2f}x the bare post's instructions.")


if __name__ == "__main__":
    main()
