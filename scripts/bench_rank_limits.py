"""``council rank`` on files sized to hurt: wall time, peak memory and exit code of each run.

Writes one-item ballot files (every judge scores every candidate), runs
``python -m council rank FILE`` on each in a child process, and prints a
Markdown table: the shape, the file's size, the exit code, the seconds and
the child's peak resident memory (``ru_maxrss`` from ``os.wait4``, so only
that child's). The default cases are the hostile ones of issue 44 (100,000
candidates; 50,000 judges), which must be refused, and the largest items
the limits let through (:mod:`council.ranking.ballot_sheets`), which must
rank.

    .venv/bin/python scripts/bench_rank_limits.py [--case JUDGESxCANDIDATES ...] [--items K] [--method M]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from council.ranking.ballot_sheets import MAX_CANDIDATES, MAX_CELLS, MAX_JUDGES

ROOT = Path(__file__).resolve().parent.parent
BASELINE = [(2, 3)]  # what starting Python and council costs, before any ranking
HOSTILE = [(2, 100_000), (50_000, 2)]
AT_LIMITS = [(2, MAX_CANDIDATES), (MAX_JUDGES, MAX_CELLS // MAX_JUDGES), (MAX_CELLS // 100, 100)]


def shape(text: str) -> tuple[int, int]:
    """``JUDGESxCANDIDATES`` as two counts, both at least 1."""
    try:
        judges, candidates = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected JUDGESxCANDIDATES such as 2x1000, got {text!r}") from None
    if judges < 1 or candidates < 1:
        raise argparse.ArgumentTypeError(f"judges and candidates must be at least 1, got {text!r}")
    return judges, candidates


def write_items(path: Path, judges: int, candidates: int, items: int = 1) -> None:
    """``items`` items, every judge scoring every candidate, scores spread over 0-9; item i has ``candidates + i``
    candidates, so each has a shape of its own (what a cache per shape would pile up)."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(items):
            for j in range(judges):
                for c in range(candidates + i):
                    out.write(json.dumps({"item": f"q{i}" if items > 1 else "q", "candidate": f"c{c}",
                                          "judge": f"j{j}", "score": (c * 7 + j * 3 + i) % 10}) + "\n")


def measure(path: Path, method: str) -> tuple[int, float, float, str]:
    """Exit code, wall seconds, peak RSS in MB and the last line of stderr of ``council rank`` on ``path``."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "council", "rank", str(path), "--method", method, "--json"],
                                 cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return child.returncode, seconds, usage.ru_maxrss / 1024, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", type=shape, action="append", metavar="JUDGESxCANDIDATES",
                        help="an item to try (repeatable); default: the hostile ones and the largest allowed")
    parser.add_argument("--items", type=int, default=1,
                        help="items per file, the i-th with i more candidates (default 1)")
    parser.add_argument("--method", default="calibrated", help="the aggregation method (default calibrated)")
    args = parser.parse_args()
    cases = args.case or BASELINE + HOSTILE + AT_LIMITS
    print(f"limits per item: {MAX_CANDIDATES} candidates, {MAX_JUDGES} judges, {MAX_CELLS} judge-candidate cells")
    print()
    print("| Judges x candidates | File | Exit | Seconds | Peak RSS | Says |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for judges, candidates in cases:
            path = Path(folder) / f"{judges}x{candidates}.jsonl"
            write_items(path, judges, candidates, max(args.items, 1))
            code, seconds, peak, said = measure(path, args.method)
            # "council: FILE:LINE: what" -> "what"
            verdict = "ranked" if code == 0 else said.split(": ", 2)[-1].replace("|", "/")
            many = f" ({args.items} items)" if args.items > 1 else ""
            print(f"| {judges:,} x {candidates:,}{many} | {path.stat().st_size / 1e6:.1f} MB | {code} | "
                  f"{seconds:.1f} | {peak:.0f} MB | {verdict} |", flush=True)
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
