"""``council rank`` as a user runs it, on ballots and labels written by ``scripts/simulate_juries.py``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from council.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 240


@pytest.fixture(scope="module")
def jury(tmp_path_factory) -> tuple[Path, Path]:
    """A correlated jury (1 strong judge, 3 weak ones sharing a bias), every item played in both orders."""
    folder = tmp_path_factory.mktemp("jury")
    ballots, labels = folder / "ballots.jsonl", folder / "labels.jsonl"
    done = subprocess.run([sys.executable, "scripts/simulate_juries.py", "--only", "jury-3-0.3-2", "--items",
                           str(ITEMS), "--seed", "5", "--export", str(ballots), str(labels)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return ballots, labels


def accuracy_rows(out: str) -> dict[str, tuple[float, float, float, int]]:
    rows = re.findall(r"^(aggregate|majority vote|judge \w+)\s+(\d\.\d{3})\s+(\d\.\d{3}) - (\d\.\d{3})\s+(\d+)$",
                      out, re.MULTILINE)
    return {who: (float(a), float(low), float(high), int(n)) for who, a, low, high, n in rows}


def test_rank_prints_items_judges_and_the_accuracy_table(jury):
    ballots, labels = jury
    done = subprocess.run([sys.executable, "-m", "council", "rank", str(ballots), "--labels", str(labels)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert out.startswith(f"{ITEMS} items, 4 judges; calibrated, outlier weights, two-pass mode")
    assert re.search(r"^item0000\s+c[01] > c[01]\s+\d\.\d\d", out, re.MULTILINE), "each item: ranking, confidence"
    assert f"Accuracy against the labels ({ITEMS} labelled items" in out
    rows = accuracy_rows(out)
    assert set(rows) == {"aggregate", "majority vote", "judge strong", "judge weak0", "judge weak1", "judge weak2"}
    for who, (accuracy, low, high, items) in rows.items():
        assert low <= accuracy <= high and high - low < 0.2, who
        assert items == ITEMS, who
    # The simulation's strong judge has half the weak judges' error: the table shows it.
    assert all(rows["judge strong"][0] > rows[f"judge weak{i}"][0] for i in range(3))
    # Every judge played every item in both orders: its position consistency is reported over all of them.
    judges = re.findall(r"^(strong|weak\d)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+) \((\d+) items\)", out,
                        re.MULTILINE)
    assert len(judges) == 4 and all(int(n) == ITEMS and 0.0 <= float(c) <= 1.0 for *_, c, n in judges)
    assert done.stderr == ""


def test_rank_json_matches_the_table_and_online_starts_uncalibrated(jury, capsys):
    ballots, labels = jury
    assert main(["rank", str(ballots), "--labels", str(labels), "--json", "--mode", "online"], {}) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "online" and report["weighting"] == "outlier" and len(report["items"]) == ITEMS
    assert report["items"][0]["calibrated"] is False and report["items"][1]["calibrated"] is True
    assert [row["kind"] for row in report["accuracy"][:2]] == ["aggregate", "majority"]
    assert main(["rank", str(ballots), "--labels", str(labels), "--mode", "online"], {}) == 0
    shown = accuracy_rows(capsys.readouterr().out)
    assert shown["aggregate"][0] == pytest.approx(report["accuracy"][0]["accuracy"], abs=0.0005)


def test_equal_weights_and_a_method_can_be_chosen(jury, capsys):
    ballots, _ = jury
    assert main(["rank", str(ballots), "--weighting", "equal", "--json"], {}) == 0
    report = json.loads(capsys.readouterr().out)
    assert {j["weight"] for j in report["judges"]} == {1.0}
    assert main(["rank", str(ballots), "--method", "borda"], {}) == 0
    assert capsys.readouterr().out.startswith(f"{ITEMS} items, 4 judges; borda, two-pass mode")


def test_a_bad_row_stops_with_its_line_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("item,candidate,judge,score\nq1,a,j1,7\nq1,b,j1,seven\n")
    done = subprocess.run([sys.executable, "-m", "council", "rank", str(bad)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert f"council: {bad}:3: 'score' must be a number, got 'seven'" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_missing_files_and_bad_labels_are_usage_errors(jury, tmp_path, capsys):
    ballots, _ = jury
    assert main(["rank", str(tmp_path / "absent.jsonl")], {}) == 2
    assert "absent.jsonl: no such file" in capsys.readouterr().err
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"item": "item0000", "best": "c0"}\n{"item": "item0001", "best": "zz"}\n')
    assert main(["rank", str(ballots), "--labels", str(labels)], {}) == 2
    assert "labels.jsonl:2: item 'item0001' has no candidate 'zz' (its candidates: c0, c1)" in capsys.readouterr().err
