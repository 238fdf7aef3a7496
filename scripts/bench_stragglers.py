"""Straggler benchmark: end-to-end latency with heavy-tailed members, with and without the straggler policy.

Four members answer through the fake upstream on 127.0.0.1, each call taking
a lognormal time (median ``--median-s``, p95 about 4x the median, as real
model latencies are heavy-tailed); each member reviews the others, and a
chairman writes the final answer: three calls on the critical path (two with
``--no-chairman``, as the ``quick`` preset runs). The
same questions run once with every member waited for (up to the stage
deadline) and once with ``stages.straggler_factor``; the script prints p50
and p95 of the whole run for both, against the critical path of three
median calls, and how often a member's answer or review was cut as late.

    .venv/bin/python scripts/bench_stragglers.py [--questions 40] [--median-s 2] [--factor 2] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import tempfile
import time
from pathlib import Path

from council import Council, CouncilConfig
from council.testing.fake_llm import FakeLLMServer
from council.testing.scripted import council_member

MEMBERS = ("alpha", "beta", "gamma", "delta")
#: The lognormal sigma that puts p95 at 4x the median: exp(1.645 * sigma) = 4.
SIGMA = math.log(4) / 1.645


def quality_judge(text: str) -> int:
    marker = text.rsplit("quality=", 1)
    return int(marker[1][:1]) if len(marker) == 2 and marker[1][:1].isdigit() else 5


def config(base_url: str, db: Path, factor: float | None, args: argparse.Namespace) -> CouncilConfig:
    deadline_s = args.deadline_s
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": base_url} for n in MEMBERS],
        "chairman": None if args.no_chairman else "alpha",
        "retry": {"max_attempts": 1},
        "stages": {"stage_deadline_s": deadline_s, "member_timeout_s": deadline_s, "quorum": 2,
                   "straggler_factor": factor},
        "storage": {"path": str(db)},
    })


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


async def run_mode(fake: FakeLLMServer, db: Path, factor: float | None, args: argparse.Namespace) -> dict[str, float]:
    latencies: list[float] = []
    cut_answers = cut_reviews = answers = reviews = 0
    limit = asyncio.Semaphore(args.concurrency)
    async with Council(config(fake.base_url("openai"), db, factor, args), environ={}) as council:
        async def one(index: int) -> None:
            nonlocal cut_answers, cut_reviews, answers, reviews
            async with limit:
                started = time.perf_counter()
                result = await council.ask(f"Question {index}: what is six times seven?")
                latencies.append(time.perf_counter() - started)
            answers += len(result.answers)
            reviews += len(result.reviews)
            cut_answers += sum(a.error is not None and a.error.reason == "late" for a in result.answers)
            cut_reviews += sum(r.error is not None and r.error.reason == "late" for r in result.reviews)
            if result.status != "complete":
                raise SystemExit(f"question {index} did not complete: {result.status} {result.error}")

        await asyncio.gather(*(one(i) for i in range(args.questions)))
    return {"p50": statistics.median(latencies), "p95": percentile(latencies, 0.95),
            "cut_answers": cut_answers / max(answers, 1), "cut_reviews": cut_reviews / max(reviews, 1)}


async def main_async(args: argparse.Namespace) -> None:
    draw = random.Random(args.seed)
    async with FakeLLMServer(record=False) as fake:
        fake.default_latency_s = lambda: draw.lognormvariate(math.log(args.median_s), SIGMA)
        fake.default_reply = council_member(lambda request: f"{request.model} says 42. quality=7", quality_judge)
        with tempfile.TemporaryDirectory() as folder:
            waited = await run_mode(fake, Path(folder) / "waited.db", None, args)
            cut = await run_mode(fake, Path(folder) / "cut.db", args.factor, args)
    critical = (2 if args.no_chairman else 3) * args.median_s
    who = "4 members, no chairman" if args.no_chairman else "4 members + chairman"
    print(f"Stragglers: {args.questions} questions, {who}, each call lognormal "
          f"(median {args.median_s:g} s, p95 {args.median_s * 4:g} s); critical path of median calls "
          f"{critical:g} s; stage deadline {args.deadline_s:g} s")
    print("| Policy | p50 | p95 | p95 / critical path | answers cut | reviews cut |")
    print("|---|---|---|---|---|---|")
    for name, figures in (("wait for all", waited), (f"straggler_factor {args.factor:g}", cut)):
        print(f"| {name} | {figures['p50']:.2f} s | {figures['p95']:.2f} s | {figures['p95'] / critical:.2f}x | "
              f"{figures['cut_answers']:.0%} | {figures['cut_reviews']:.0%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--median-s", type=float, default=2.0, help="median upstream call time")
    parser.add_argument("--factor", type=float, default=2.0, help="stages.straggler_factor for the second pass")
    parser.add_argument("--concurrency", type=int, default=20, help="questions in flight at once")
    parser.add_argument("--deadline-s", type=float, default=60.0, help="stages.stage_deadline_s")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-chairman", action="store_true", help="the top answer is final (as the quick preset)")
    args = parser.parse_args()
    if args.questions < 1 or args.median_s <= 0 or args.factor < 1 or args.concurrency < 1:
        parser.error("--questions and --concurrency must be at least 1, --median-s above 0, --factor at least 1")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
