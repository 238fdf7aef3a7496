"""The benchmark scripts the README quotes run to the end and print every figure they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_pipeline_prints_every_line_with_no_failed_question():
    done = subprocess.run(
        [sys.executable, "scripts/bench_pipeline.py", "--latency-questions", "2", "--questions", "6",
         "--concurrency", "3", "--repeats", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "| Measurement | Result |"
    latency, throughput, bare, straggler = lines[2:6]
    assert "(overhead " in latency and "the bare client's median" in latency and "median of 1 runs" in latency
    assert "ms CPU per question in the council process" in throughput and "0 failed of 6" in throughput
    assert "the council spends" in bare and "x the bare client's CPU" in bare
    assert "the slow member is failed (timeout)" in straggler
