"""Instructions per question: what the pipeline and its store cost, counted by callgrind rather than timed.

CPU time on a small shared machine drifts by 20% from one run to the next,
too much to tell whether a change halved a 2 ms part of an 11 ms question.
An instruction count hardly moves. This runs the throughput test of
bench_pipeline (4 members and a chairman on the fake upstream at 0 ms, 50
questions in flight, the server's garbage-collector settings; written out
here, with each checkout's own fake upstream and config, because older
checkouts' measure_throughput always opens a store) under valgrind's
callgrind at two sizes and takes the difference, so start-up, imports and
the warm-up cancel out::

    instructions per question = (I(large) - I(small)) / (large - small)

for each store (none, and SQLite in a fresh file), in this checkout and,
with ``--baseline``, in another checkout of Council (a git worktree of an
older commit), then prints what the store adds to a question and how that
compares. Only the council's process is counted: the fake upstream runs in
a process of its own.

    git worktree add /tmp/before c4bd47e^
    .venv/bin/python scripts/bench_instructions.py --baseline /tmp/before

Needs valgrind (``apt-get install valgrind``); a run of 120 questions takes
a minute or two under it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
STORES = ("none", "sqlite")
_SUMMARY = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def drive(tree: Path, store: str, questions: int) -> None:
    """Run ``questions`` questions, 50 in flight, with the checkout at ``tree`` (inside valgrind)."""
    import asyncio
    import gc

    sys.path.insert(0, str(tree / "scripts"))
    import bench_pipeline  # the checkout's own: its fake upstream and its council config

    import council
    from council import Council
    from council.storage.store import Store

    if not Path(council.__file__).resolve().is_relative_to(tree.resolve()):
        sys.exit(f"imported council from {council.__file__}, not from {tree}")

    async def run(url: str) -> int:
        db = Path(tempfile.mkdtemp(prefix="council-instructions-")) / "council.db"
        config = bench_pipeline.council_config(url, db)
        # The same pool in every checkout, the fixed limits of older ones: under valgrind the council is some
        # fifty times slower, and a pool sized for 32 runs at once lets more calls wait on their sockets than
        # their timeouts allow; fewer connections keep the others waiting in the pool, where no timer runs.
        pool = {"max_connections": 200, "max_connections_per_host": 50}
        # Instructions do not depend on deadlines, but valgrind on a busy machine can stretch one call past the
        # fake council's 30 s: an expired deadline would fail a question and count a different pipeline.
        # Likewise the store's wait: a write that outlasts it is deferred and the question reported degraded.
        slow = {"stage_deadline_s": 3600.0, "member_timeout_s": 3600.0}
        update = {"transport": config.transport.model_copy(update=pool),
                  "stages": config.stages.model_copy(update=slow)}
        if "critical_wait_s" in type(config.storage).model_fields:  # older checkouts have no such bound
            update["storage"] = config.storage.model_copy(update={"critical_wait_s": 60.0})
        config = config.model_copy(update=update)
        async with Council(config, store=False if store == "none" else Store(db), environ={}) as council:
            for index in range(3):
                await council.ask(f"Warm-up question {index}?")
            gc.collect()
            gc.freeze()  # as `council serve` does (server/listen.tune_garbage_collector)
            gc.set_threshold(10_000, 10, 10)
            slots = asyncio.Semaphore(50)

            reasons: list[str] = []

            async def one(index: int) -> bool:
                async with slots:
                    result = await council.ask(f"Throughput question {index}?")
                    if result.status == "complete" and not result.degraded:
                        return True
                    reasons.append(f"question {index}: {result.status}; {'; '.join(result.degraded_reasons)}")
                    return False

            failed = sum(not ok for ok in await asyncio.gather(*(one(i) for i in range(questions))))
            for reason in reasons[:5]:
                print(reason, file=sys.stderr)
            return failed

    with bench_pipeline.fake_upstream("--latency", "0") as upstream:
        failed = asyncio.run(run(upstream.url))
    if failed:
        sys.exit(f"{failed} of {questions} questions failed")


def callgrind_total(arguments: list[str], out: Path, what: str, **run: Any) -> int:
    """Instructions ``python ARGUMENTS`` executed under callgrind (its own process only); exits naming ``what``."""
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, *arguments],
                          capture_output=True, text=True, **run)
    if done.returncode != 0:
        sys.exit(f"{what} failed under valgrind:\n{done.stderr[-2000:]}")
    found = _SUMMARY.search(out.read_text())
    if found is None:
        sys.exit(f"no instruction total in {out}")
    return int(found.group(1))


def count(tree: Path, store: str, questions: int, folder: Path) -> int:
    """Instructions the council's process executed answering ``questions`` questions."""
    return callgrind_total([str(HERE), "--drive", str(tree), store, str(questions)],
                           folder / f"{tree.name}.{store}.{questions}.callgrind",
                           f"{tree} with store {store}, {questions} questions",
                           cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)})


def per_question(trees: list[Path], small: int, large: int) -> dict[tuple[Path, str], float]:
    """Instructions per question for every (checkout, store), the runs two at a time."""
    jobs = [(tree, store, size) for tree in trees for store in STORES for size in (small, large)]
    with tempfile.TemporaryDirectory(prefix="council-callgrind-") as folder, \
            ThreadPoolExecutor(max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        totals = dict(zip(jobs, pool.map(lambda job: count(job[0], job[1], job[2], Path(folder)), jobs),
                          strict=True))
    return {(tree, store): (totals[tree, store, large] - totals[tree, store, small]) / (large - small)
            for tree in trees for store in STORES}


def describe(tree: Path) -> str:
    commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"{tree} ({commit.stdout.strip() or 'not a git checkout'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of Council to compare with")
    parser.add_argument("--small", type=int, default=20, help="questions in the smaller run")
    parser.add_argument("--large", type=int, default=120, help="questions in the larger run")
    parser.add_argument("--drive", nargs=3, metavar=("TREE", "STORE", "QUESTIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(Path(args.drive[0]), args.drive[1], int(args.drive[2]))
        return
    if args.baseline and not (args.baseline / "council").is_dir():
        sys.exit(f"{args.baseline} is not a checkout of Council (no council/ in it)")
    if not 0 < args.small < args.large:
        sys.exit("--small must be at least 1 and less than --large")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    trees = [HERE.parent.parent] + ([args.baseline.resolve()] if args.baseline else [])
    counts = per_question(trees, args.small, args.large)
    print("| Checkout | Instructions a question, no store | With the SQLite store | What the store adds |")
    print("|---|---|---|---|")
    for tree in trees:
        none, sqlite = counts[tree, "none"], counts[tree, "sqlite"]
        print(f"| {describe(tree)} | {none / 1e6:.2f} M | {sqlite / 1e6:.2f} M | {(sqlite - none) / 1e6:.2f} M |")
    if args.baseline:
        here, there = trees
        added = {tree: counts[tree, "sqlite"] - counts[tree, "none"] for tree in trees}
        store_ratio = added[here] / added[there]
        print(f"\nThis checkout's store adds {store_ratio:.2f}x the instructions a question that the baseline's "
              f"did; a whole question with the store takes {counts[here, 'sqlite'] / counts[there, 'sqlite']:.2f}x.")


if __name__ == "__main__":
    main()
