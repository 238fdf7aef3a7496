"""``scripts/judgebench_ballots.py`` on small files in JudgeBench's output format (invented questions), then
``council rank --labels --learn`` on what it wrote."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAIRS = 40


def _record(pair: int, label: str, judge_name: str, games: list[dict]) -> dict:
    return {"pair_id": f"pair-{pair:03d}", "original_id": pair, "source": "arithmetic" if pair % 2 else "spelling",
            "question": f"What is {pair} plus {pair + 1}?", "response_model": "made-up-model",
            "response_A": f"It is {2 * pair + 1}.", "response_B": f"It is {2 * pair + 2}.", "label": label,
            "judge_name": judge_name, "judgments": games}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> tuple[Path, dict[str, str], dict[str, tuple[float, float]]]:
    """A reward model (scores by slot, order-blind), a prompted judge (decisions, one tie, one unparsed game)."""
    folder = tmp_path_factory.mktemp("judgebench")
    rng = random.Random(4)
    truth = {f"pair-{p:03d}": rng.choice("AB") for p in range(PAIRS)}
    reward, prompted, rm_scores = [], [], {}
    for p, (pair, best) in enumerate(truth.items()):
        label = "A>B" if best == "A" else "B>A"
        a, b = rng.gauss(1.0 if best == "A" else 0.0, 0.8), rng.gauss(1.0 if best == "B" else 0.0, 0.8)
        rm_scores[pair] = (a, b)
        reward.append(_record(p, label, "reward_model", [
            {"judgment": {"judge_model": "maker/rm-7b", "prompt": "", "response": "", "scores": [a, b]},
             "decision": "A>B" if a > b else "B>A"},
            {"judgment": {"judge_model": "maker/rm-7b", "prompt": "", "response": "", "scores": [b, a]},
             "decision": "A>B" if b > a else "B>A"}]))
        right = rng.random() < 0.75
        first = ("A>B" if best == "A" else "B>A") if right else ("B>A" if best == "A" else "A>B")
        swapped = {"A>B": "B>A", "B>A": "A>B"}[first]  # the same verdict on the pair shown the other way round
        if p == 0:
            first = "A=B"
        if p == 1:
            swapped = None
        prompted.append(_record(p, label, "arena_hard", [
            {"judgment": {"judge_model": "lab-judge-1", "prompt": "verdict", "response": "[[A>B]]"}, "decision": first},
            {"judgment": {"judge_model": "lab-judge-1", "prompt": "verdict", "response": "?"}, "decision": swapped}]))
    for name, records in (("reward_model,judge_model=maker_rm-7b", reward),
                          ("arena_hard,judge_model=lab-judge-1", prompted)):
        path = folder / f"dataset=judgebench,response_model=made-up-model,judge_name={name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder, truth, rm_scores


def convert(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    files = sorted(map(str, folder.glob("dataset=*.jsonl")))
    return subprocess.run([sys.executable, "scripts/judgebench_ballots.py", *files,
                           "--ballots", str(folder / "ballots.jsonl"), "--labels", str(folder / "labels.jsonl"),
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_games_map_slots_back_to_the_pair_and_decisions_become_scores(outputs):
    folder, truth, rm_scores = outputs
    done = convert(folder)
    assert done.returncode == 0, done.stderr
    assert f"of {PAIRS} pairs by 2 judges (lab-judge-1, maker_rm-7b)" in done.stdout
    assert "skipped 1 games without a usable decision (lab-judge-1)" in done.stdout
    rows = [json.loads(line) for line in (folder / "ballots.jsonl").read_text().splitlines()]
    rm = {(r["item"], r["game"], r["candidate"]): (r["score"], r["position"]) for r in rows
          if r["judge"] == "maker_rm-7b"}
    a, b = rm_scores["pair-005"]
    assert rm[("pair-005", 1, "A")] == (a, 0) and rm[("pair-005", 1, "B")] == (b, 1)
    assert rm[("pair-005", 2, "B")] == (b, 0) and rm[("pair-005", 2, "A")] == (a, 1)
    judge = {(r["item"], r["game"], r["candidate"]): r["score"] for r in rows if r["judge"] == "lab-judge-1"}
    assert judge[("pair-000", 1, "A")] == judge[("pair-000", 1, "B")] == 0.5
    assert ("pair-001", 2, "A") not in judge and ("pair-001", 1, "A") in judge
    # A verdict held in both orders gives the same candidate the point in both games.
    assert all(judge[(p, 1, c)] == judge[(p, 2, c)] for p in list(truth)[2:] for c in "AB")
    labels = {json.loads(line)["item"]: json.loads(line)["best"]
              for line in (folder / "labels.jsonl").read_text().splitlines()}
    assert labels == truth


def test_council_rank_learns_from_the_converted_files(outputs):
    folder, truth, _ = outputs
    assert convert(folder).returncode == 0
    done = subprocess.run([sys.executable, "-m", "council", "rank", str(folder / "ballots.jsonl"), "--labels",
                           str(folder / "labels.jsonl"), "--learn", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    judges = {j["judge"]: j for j in report["judges"]}
    # The reward model scores each response the same in either order: its top pick never moves.
    assert judges["maker_rm-7b"]["position_consistency"] == 1.0 and judges["maker_rm-7b"]["position_items"] == PAIRS
    assert report["ignored_columns"] == ["source"]
    learning = report["learning"]
    assert learning["labelled_items"] == PAIRS
    rows = {row["name"]: row for row in learning["cross_validated"]}
    # The prompted judge's accuracy is what the invented verdicts make it (a tie is half right).
    prompted = [r for r in (folder / "ballots.jsonl").read_text().splitlines() if "lab-judge-1" in r]
    scores: dict[str, dict[str, list[float]]] = {}
    for line in prompted:
        row = json.loads(line)
        scores.setdefault(row["item"], {}).setdefault(row["candidate"], []).append(row["score"])
    expected = 0.0
    for pair, by_candidate in scores.items():
        means = {c: sum(v) / len(v) for c, v in by_candidate.items()}
        winners = [c for c, v in means.items() if v == max(means.values())]
        expected += (truth[pair] in winners) / len(winners)
    assert rows["lab-judge-1"]["accuracy"] == pytest.approx(expected / PAIRS, abs=1e-6)


def test_a_source_filter_and_a_malformed_line(outputs, tmp_path):
    folder, _, _ = outputs
    assert convert(folder, "--source", "arithmetic").returncode == 0
    kept = {json.loads(line)["source"] for line in (folder / "ballots.jsonl").read_text().splitlines()}
    assert kept == {"arithmetic"}
    bad = tmp_path / "dataset=judgebench,judge_name=reward_model,judge_model=x.jsonl"
    bad.write_text(json.dumps(_record(0, "A>B", "reward_model", [
        {"judgment": {"scores": [1.0]}, "decision": "A>B"}])) + "\n")
    done = convert(tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{bad}:1: judgment 1: 'scores' must be two finite numbers, got [1.0]" in done.stderr
    bad.write_text("{not json\n")
    done = convert(tmp_path)
    assert done.returncode == 2 and f"{bad}:1: not JSON" in done.stderr
