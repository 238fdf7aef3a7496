"""Measure the safety gate's layers on the labelled corpus: recall, false positives and cost.

For each layer (today: ``patterns``, the offline pattern gate with its
judge-aimed flag; a moderation layer registers itself in ``LAYERS`` the same
way) and each split of tests/data/safety/corpus.jsonl, prints:

* recall: the share of harmful answers the layer fails, per category and per
  language (and the share it fails *with the right category*);
* false positives: the share of benign answers it fails, overall and per
  category and language;
* the judge-aimed flag (``evaluator_manipulation``, which flags and does not
  block): its recall on the text aimed at judges or revisers and its false
  positives on the hard negatives, per language, kind (judge, reviser,
  system) and disguise, and its false positives on every other benign answer;
* cost: the median time per KB of answer over the corpus (best of a few
  runs per answer, so other processes on the machine disturb it less).

The pseudo-split ``fresh`` is the part of heldout written after the pattern
layer was tuned (``written: after_tuning``): the figure nobody tuned for.
The split ``unseen`` is the set tests/data/safety/unseen.jsonl
(``--corpus`` it), written apart and never tuned on. Without ``--split``,
every split found in the corpus is reported.

Usage: python scripts/bench_safety.py [--layer NAME] [--split dev|heldout|fresh|unseen|all] [--corpus PATH]
[--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from council.safety import check_answer
from council.safety.manipulation import CATEGORY as JUDGE
from council.safety.manipulation import find_manipulation

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "safety" / "corpus.jsonl"
SPLITS = ("dev", "heldout", "fresh", "unseen")


def pattern_layer(text: str) -> set[str]:
    """The categories the pattern gate fails an answer for, and ``evaluator_manipulation`` when it flags it."""
    found = {finding.category for finding in check_answer(text).findings}
    if find_manipulation(text):
        found.add(JUDGE)
    return found


# name -> a function returning the categories a layer flags in one answer; empty means it passed.
LAYERS: dict[str, Callable[[str], set[str]]] = {"patterns": pattern_layer}


FIELDS = ("text", "label", "category", "language", "split", "family", "shape")


def load_corpus(path: Path = CORPUS) -> list[dict[str, str]]:
    """The corpus records, one per line; ``ValueError`` naming the line when one is not a whole record."""
    records = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:
                raise ValueError(f"line {number}: not JSON ({error})") from None
            missing = [k for k in FIELDS if not isinstance(record, dict) or not isinstance(record.get(k), str)]
            if missing:
                raise ValueError(f"line {number}: no {', '.join(missing)}")
            records.append(record)
    return records


def in_split(record: dict[str, str], split: str) -> bool:
    """Whether a record is in a split: ``all``, ``dev``, ``heldout``, or ``fresh`` (heldout written after tuning)."""
    if split == "fresh":
        return record.get("written") == "after_tuning"
    return split == "all" or record["split"] == split


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def score(records: list[dict[str, str]], flagged: list[set[str]]) -> dict[str, dict[str, float | None]]:
    """Recall and false-positive rates for records and the categories flagged on each."""
    out: dict[str, dict[str, float | None]] = {"recall": {}, "recall_right_category": {}, "false_positives": {}}
    harmful = [(r, f) for r, f in zip(records, flagged, strict=True) if r["label"] == "harmful"]
    benign = [(r, f) for r, f in zip(records, flagged, strict=True) if r["label"] == "benign"]
    keys = sorted({r["category"] for r in records}) + sorted({"lang:" + r["language"] for r in records})
    for key in ["all", *keys]:
        def pick(pairs: list[tuple[dict[str, str], set[str]]], key: str = key) -> list[tuple[dict[str, str], set[str]]]:
            if key == "all":
                return pairs
            if key.startswith("lang:"):
                return [p for p in pairs if p[0]["language"] == key[5:]]
            return [p for p in pairs if p[0]["category"] == key]
        h, b = pick(harmful), pick(benign)
        out["recall"][key] = _share(sum(bool(f) for _, f in h), len(h))
        out["recall_right_category"][key] = _share(sum(r["category"] in f for r, f in h), len(h))
        out["false_positives"][key] = _share(sum(bool(f) for _, f in b), len(b))
    return out


def cost_per_kb(layer: Callable[[str], set[str]], records: list[dict[str, str]], repeats: int = 3) -> float:
    """Median microseconds per KB of answer (UTF-8), each answer timed as its best of ``repeats`` runs."""
    per_kb = []
    for record in records:
        text = record["text"]
        best = min(_timed(layer, text) for _ in range(repeats))
        per_kb.append(best * 1e6 / (len(text.encode("utf-8")) / 1024))
    return statistics.median(per_kb)


def _timed(layer: Callable[[str], set[str]], text: str) -> float:
    started = time.perf_counter()
    layer(text)
    return time.perf_counter() - started


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.3f}"


def report(name: str, records: list[dict[str, str]], splits: list[str]) -> dict[str, object]:
    """Run one layer over the corpus, print its table, return the figures."""
    layer = LAYERS[name]
    everything = [layer(r["text"]) for r in records]
    # The blocking categories here; the judge-aimed flag blocks nothing and has its own table.
    blocking = [(r, f - {JUDGE}) for r, f in zip(records, everything, strict=True) if r["category"] != JUDGE]
    figures: dict[str, object] = {}
    for split in splits:
        chosen = [(r, f) for r, f in blocking if in_split(r, split)]
        figures[split] = score([r for r, _ in chosen], [f for _, f in chosen])
    print(f"\nlayer: {name}   (recall = harmful answers failed; right cat. = failed with their category; "
          "FP = benign answers failed)")
    header = "".join(f" | {s:^23}" for s in splits)
    print(f"{'':24}{header}\n{'':24}" + " | recall right   FP   " * len(splits))
    keys = list(next(iter(figures.values()))["recall"])  # type: ignore[index]
    for key in keys:
        row = "".join(
            f" | {_fmt(f['recall'][key])} {_fmt(f['recall_right_category'][key])} {_fmt(f['false_positives'][key])}"  # type: ignore[index]
            for f in figures.values()
        )
        print(f"{key:24}{row}")
    figures["judge_aimed"] = judge_table(records, [JUDGE in f for f in everything], splits)
    cost = cost_per_kb(layer, records)
    print(f"cost: median {cost:.0f} µs per KB of answer over {len(records)} answers")
    figures["cost_us_per_kb"] = cost
    return figures


def judge_rows(record: dict[str, str]) -> list[str]:
    """The rows of the judge-aimed table a record counts in."""
    if record["category"] != JUDGE:
        return ["other benign answers"] if record["label"] == "benign" else []
    kind = record["family"].rsplit("/", 1)[-1].split(".")[0]
    rows = ["all", f"lang:{record['language']}"]
    if record["label"] == "harmful":
        rows += [f"kind:{kind}", "plain" if record["shape"] == "plain" else "disguised"]
    return rows


JUDGE_ROWS = ["all", "lang:en", "lang:es", "lang:fr", "lang:de", "kind:judge", "kind:reviser", "kind:system",
              "plain", "disguised", "other benign answers"]


def judge_table(records: list[dict[str, str]], flagged: list[bool], splits: list[str]) -> dict[str, object]:
    """Recall and false positives of the judge-aimed flag per row and split; prints the table."""
    figures: dict[str, object] = {}
    for split in splits:
        counts = {row: [0, 0, 0, 0] for row in JUDGE_ROWS}  # aimed, aimed flagged, benign, benign flagged
        for record, hit in zip(records, flagged, strict=True):
            if not in_split(record, split):
                continue
            for row in judge_rows(record):
                slot = 0 if record["label"] == "harmful" else 2
                counts[row][slot] += 1
                counts[row][slot + 1] += hit
        figures[split] = {row: {"aimed": c[0], "recall": _share(c[1], c[0]), "negatives": c[2],
                                "false_positives": _share(c[3], c[2])} for row, c in counts.items()}
    print(f"\njudge-aimed flag ({JUDGE}: recall = aimed text flagged; FP = hard negatives flagged, and on the "
          "last row every other benign answer)")
    print(f"{'':24}" + "".join(f" | {s:^21}" for s in splits) + f"\n{'':24}" + " |  n   recall  n    FP " * len(splits))
    for row in JUDGE_ROWS:
        cells = "".join(f" | {f[row]['aimed']:3d} {_fmt(f[row]['recall'])} {f[row]['negatives']:3d} "  # type: ignore[index]
                        f"{_fmt(f[row]['false_positives'])}" for f in figures.values())  # type: ignore[index]
        print(f"{row:24}{cells}")
    return figures


def main(argv: list[str] | None = None) -> int:
    """Benchmark the chosen layers and print (or dump as JSON) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layer", choices=sorted(LAYERS), action="append", help="a layer to run (default: all)")
    parser.add_argument("--split", choices=[*SPLITS, "all"], action="append",
                        help="a split to report (default: each of dev, heldout, fresh and unseen in the corpus)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    try:
        records = load_corpus(args.corpus)
    except (OSError, ValueError) as error:
        print(f"cannot read the corpus {args.corpus}: {error}", file=sys.stderr)
        return 2
    splits = args.split or [split for split in SPLITS if any(in_split(r, split) for r in records)]
    if not splits:
        print(f"the corpus {args.corpus} has no record in any of the splits {', '.join(SPLITS)}", file=sys.stderr)
        return 2
    count = {(judged, label): sum((r["category"] == JUDGE) == judged and r["label"] == label for r in records)
             for judged in (False, True) for label in ("harmful", "benign")}
    print(f"corpus: {args.corpus.name}, {count[False, 'harmful']} harmful and {count[False, 'benign']} benign "
          f"answers; {count[True, 'harmful']} aimed at the judges and {count[True, 'benign']} hard negatives")
    results = {name: report(name, records, splits) for name in (args.layer or sorted(LAYERS))}
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
