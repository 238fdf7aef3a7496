"""Bare ``ask`` calls one after another against ``async with``: what each adds over a bare HTTP client.

A script that asks question after question without ``async with`` used to
open a new HTTP session for every question (new connections for every
stage). The council now keeps one session across bare calls; this prints
the median latency of ``--questions`` sequential questions three ways, on
the same fake upstream (a separate process, ``--latency`` seconds a call,
4 members and a chairman: 9 calls a question, 3 of them on the critical
path): bare ``await council.ask(...)`` calls, calls inside ``async with``,
and a bare aiohttp client making the same calls. Each figure is the median
over ``--repeats`` passes (alternating, so drift hits all three alike).

    .venv/bin/python scripts/bench_bare_calls.py [--questions 12] [--latency 0.2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench_pipeline import council_config, fake_upstream, measure_bare_latency, open_store

from council import Council


async def sequential(base_url: str, db: Path, questions: int, *, block: bool) -> list[float]:
    """Seconds per question, asked one after another inside ``async with`` (``block``) or as bare calls."""
    council = Council(council_config(base_url, db), store=open_store(db), environ={})
    if block:
        await council.__aenter__()
    await council.ask("warm-up question?")
    times = []
    for index in range(questions):
        started = time.perf_counter()
        result = await council.ask(f"Question {index}?")
        times.append(time.perf_counter() - started)
        assert result.status == "complete" and not result.degraded, result.degraded_reasons
    await (council.__aexit__(None, None, None) if block else council.aclose())
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the fake upstream takes a call")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.questions < 1 or args.repeats < 1 or args.latency < 0:
        parser.error("--questions and --repeats must be at least 1, --latency at least 0")
    medians: dict[str, list[float]] = {"bare ask calls": [], "inside async with": [], "bare aiohttp client": []}
    with fake_upstream("--latency", str(args.latency)) as upstream, tempfile.TemporaryDirectory() as folder:
        for repeat in range(args.repeats):
            db = Path(folder) / f"runs-{repeat}.db"
            medians["bare ask calls"].append(statistics.median(
                asyncio.run(sequential(upstream.url, db, args.questions, block=False))))
            medians["inside async with"].append(statistics.median(
                asyncio.run(sequential(upstream.url, db, args.questions, block=True))))
            medians["bare aiohttp client"].append(statistics.median(
                asyncio.run(measure_bare_latency(upstream.url, args.questions))))
    floor = statistics.median(medians["bare aiohttp client"])
    print(f"{args.questions} questions one after another, {args.latency:g} s a call, median of {args.repeats} passes")
    print("| Caller | Median per question | Over the bare client |")
    print("|---|---|---|")
    for name, values in medians.items():
        value = statistics.median(values)
        print(f"| {name} | {value * 1000:.1f} ms | {(value - floor) * 1000:+.1f} ms |")


if __name__ == "__main__":
    main()
