"""``council rank --labels FILE --learn`` as a user runs it, on a jury written by ``scripts/simulate_juries.py``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from council.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
LABELLED = 50


@pytest.fixture(scope="module")
def jury(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """One strong judge and five weak ones sharing 60% of their error, 350 two-answer items; the first 50
    labelled (the simulation knows every item's right answer, returned for scoring the other 300)."""
    folder = tmp_path_factory.mktemp("learn-cli")
    ballots, truth_file, labels = folder / "ballots.jsonl", folder / "truth.jsonl", folder / "labels.jsonl"
    done = subprocess.run([sys.executable, "scripts/simulate_juries.py", "--only", "jury-5-0.6-2", "--items", "350",
                           "--seed", "0", "--export", str(ballots), str(truth_file)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in truth_file.read_text().splitlines()]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows[:LABELLED]))
    return ballots, labels, {row["item"]: row["best"] for row in rows[LABELLED:]}


def held_out_accuracy(report: dict, held: dict[str, str]) -> float:
    tops = {item["item"]: item["ranking"][0]["member"] for item in report["items"]}
    return sum(tops[item] == best for item, best in held.items()) / len(held)


def test_learn_prints_weights_cross_validated_accuracy_and_the_learning_curve(jury):
    ballots, labels, _ = jury
    done = subprocess.run([sys.executable, "-m", "council", "rank", str(ballots), "--labels", str(labels), "--learn"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert out.startswith("350 items, 6 judges; calibrated, learned weights, two-pass mode")
    assert f"Learned weights ({LABELLED} labelled items; prior worth 5 items" in out
    weights = dict(re.findall(r"^(strong|weak\d)\s+1\.00\s+(\d+\.\d\d)\s+\d+\.\d\d - \d+\.\d\d$", out, re.MULTILINE))
    assert len(weights) == 6 and max(weights, key=lambda judge: float(weights[judge])) == "strong"
    assert "5-fold cross-validation for the learned weights" in out
    rows = re.findall(r"^(learned weights \(cross-validated\)|default weights|equal weights|majority vote|judge \w+)"
                      r"\s+(\d\.\d{3})\s+(\d\.\d{3}) - (\d\.\d{3})\s+(\d+)$", out, re.MULTILINE)
    assert [who for who, *_ in rows][:4] == ["learned weights (cross-validated)", "default weights", "equal weights",
                                             "majority vote"]
    assert len(rows) == 10 and all(int(n) == LABELLED and float(lo) <= float(a) <= float(hi)
                                   for _, a, lo, hi, n in rows)
    assert re.search(r"^10\s+20\s+40\s+\d\.\d{3}\s+\d\.\d{3}\s+[+-]\d\.\d{3}$", out, re.MULTILINE)
    assert re.search(r"^the learned weights (beat the default from \d+ labels on|did not beat)", out, re.MULTILINE)
    assert "Accuracy against the labels" not in out  # in-sample figures are not shown beside the learned ranking
    assert done.stderr == ""


def test_learned_ranking_beats_equal_weights_on_the_unlabelled_items(jury, capsys):
    ballots, labels, held = jury
    assert main(["rank", str(ballots), "--labels", str(labels), "--learn", "--json"], {}) == 0
    learned = json.loads(capsys.readouterr().out)
    assert main(["rank", str(ballots), "--weighting", "equal", "--json"], {}) == 0
    equal = json.loads(capsys.readouterr().out)
    assert learned["weighting"] == "learned" and learned["learning"]["labelled_items"] == LABELLED
    assert {w["judge"] for w in learned["learning"]["weights"]} == {"strong", *(f"weak{i}" for i in range(5))}
    assert held_out_accuracy(learned, held) > held_out_accuracy(equal, held)


def test_learn_with_no_matching_label_prints_the_default_ranking(jury, tmp_path, capsys):
    ballots, _, _ = jury
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text("item,best\nnot-in-the-ballots,c0\n")
    assert main(["rank", str(ballots), "--json"], {}) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["rank", str(ballots), "--labels", str(elsewhere), "--learn", "--json"], {}) == 0
    learned = json.loads(capsys.readouterr().out)
    assert learned["items"] == default["items"] and learned["weighting"] == "outlier"
    assert main(["rank", str(ballots), "--labels", str(elsewhere), "--learn"], {}) == 0
    assert "no labelled item matched the ballots, so nothing was learned" in capsys.readouterr().out


def test_learn_without_labels_is_a_usage_error(jury):
    ballots, _, _ = jury
    done = subprocess.run([sys.executable, "-m", "council", "rank", str(ballots), "--learn"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "needs labels: give --labels FILE with --learn" in done.stderr and "Traceback" not in done.stderr


def test_one_label_learns_a_little_and_says_it_cannot_cross_validate(jury, tmp_path, capsys):
    ballots, labels, _ = jury
    one = tmp_path / "one.jsonl"
    one.write_text(labels.read_text().splitlines()[0] + "\n")
    assert main(["rank", str(ballots), "--labels", str(one), "--learn"], {}) == 0
    out = capsys.readouterr().out
    assert "Learned weights (1 labelled items; prior worth 5 items" in out
    assert "no cross-validation of the learned weights: it needs 2 labelled items" in out
    assert re.search(r"^learned weights \(cross-validated\)\s+-\s+- - -\s+0$", out, re.MULTILINE)
    assert "Learning curve: too few labelled items" in out
