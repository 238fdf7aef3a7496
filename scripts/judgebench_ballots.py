"""Turn JudgeBench's published judge outputs into ``council rank`` ballots and a labels file.

JudgeBench (github.com/ScalerLab/JudgeBench) publishes, in its ``outputs/``
folder, one JSONL file per judge: each line is one pair of responses to a
question (``pair_id``, ``source``, ``label`` "A>B" or "B>A", ``judge_name``)
and ``judgments``, the judge's verdicts on the pair shown in the original
order and then swapped. This script reads such files from the paths given
(it never fetches anything) and writes:

- ballots (JSONL): item = ``pair_id``, candidate = ``A`` or ``B`` (the
  pair's own names), judge = the judge model, game = 1 (original order) or
  2 (swapped), position = the slot the candidate was shown in, and a score:
  a reward model's own score (``judgment.scores``: the two responses' scores
  in the order shown), or, for a prompted judge without scores, one derived
  from its decision: 1 for the response it preferred, 0 for the other, 0.5
  each for "A=B". In each game "A" and "B" of the decision and of the scores
  name the slots shown, so in the swapped game slot A holds response B. A
  game whose decision is anything else (missing, unparsed) gives no row and
  is counted in the summary;
- labels (JSONL): item and best (``A`` for "A>B", ``B`` for "B>A"; other
  labels are skipped and counted).

The judge is the model named by the file name's ``judge_model=...`` part,
else the judgments' ``judge_model``; two files with the same judge model
under different ``judge_name`` (prompt styles) keep both, as
``MODEL [judge_name]``. A malformed line stops the script with the file,
the line and what is wrong (exit 2).

    python scripts/judgebench_ballots.py outputs/*.jsonl --ballots ballots.jsonl --labels labels.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

DECISION_SCORES = {"A>B": (1.0, 0.0), "B>A": (0.0, 1.0), "A=B": (0.5, 0.5)}
"""A prompted judge's decision as scores for (slot A, slot B)."""
LABELS = {"A>B": "A", "B>A": "B"}
_FILE_JUDGE = re.compile(r"judge_model=([^,]+?)(?:\.jsonl)?$")


class ConversionError(Exception):
    """A line that is not a JudgeBench output record; the message names the file, the line and the field."""


def _records(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConversionError(f"{path}: cannot be read ({error})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ConversionError(f"{path}:{number}: not JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise ConversionError(f"{path}:{number}: a record must be a JSON object")
        yield number, record


def _field(record: dict[str, object], name: str, where: str) -> object:
    if name not in record or record[name] in (None, ""):
        raise ConversionError(f"{where}: missing '{name}'")
    return record[name]


def _scores(judgment: dict[str, object], decision: object, where: str) -> tuple[float, float] | None:
    """Scores for (slot A, slot B) of one game: the reward model's, else the decision's; None to skip it."""
    scores = judgment.get("scores")
    if scores is not None:
        if (not isinstance(scores, list) or len(scores) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                           for v in scores)):
            raise ConversionError(f"{where}: 'scores' must be two finite numbers, got {scores!r}")
        return float(scores[0]), float(scores[1])
    return DECISION_SCORES.get(decision) if isinstance(decision, str) else None


def _judge_model(path: Path, judgments: list[object]) -> str:
    named = _FILE_JUDGE.search(path.name)
    if named:
        return named.group(1)
    for game in judgments:
        inner = game.get("judgment") if isinstance(game, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("judge_model"), str) and inner["judge_model"]:
            return str(inner["judge_model"])
    return "unknown judge"


def convert(paths: list[Path]) -> tuple[list[dict[str, object]], dict[str, str], Counter[str]]:
    """Ballot rows, labels (pair -> best) and counts of what was skipped, from the files at ``paths``."""
    parsed = []
    styles: dict[str, set[str]] = {}
    for path in paths:
        for number, record in _records(path):
            where = f"{path}:{number}"
            judgments = _field(record, "judgments", where)
            if not isinstance(judgments, list) or not judgments:
                raise ConversionError(f"{where}: 'judgments' must be a list of the games")
            model, style = _judge_model(path, judgments), str(record.get("judge_name") or "")
            styles.setdefault(model, set()).add(style)
            parsed.append((where, record, judgments, model, style))
    rows: list[dict[str, object]] = []
    labels: dict[str, str] = {}
    skipped: Counter[str] = Counter()
    for where, record, judgments, model, style in parsed:
        pair = str(_field(record, "pair_id", where))
        judge = model if len(styles[model]) == 1 else f"{model} [{style}]"
        label = record.get("label")
        if label in LABELS:
            labels[pair] = LABELS[str(label)]
        else:
            skipped["labels other than A>B or B>A"] += 1
        for game, entry in enumerate(judgments[:2], start=1):
            if not isinstance(entry, dict) or not isinstance(entry.get("judgment", {}), dict):
                raise ConversionError(f"{where}: judgment {game} must be an object with 'judgment' and 'decision'")
            scores = _scores(entry.get("judgment") or {}, entry.get("decision"), f"{where}: judgment {game}")
            if scores is None:
                skipped[f"games without a usable decision ({judge})"] += 1
                continue
            shown = ("A", "B") if game == 1 else ("B", "A")  # the second game shows the pair swapped
            for slot, (candidate, score) in enumerate(zip(shown, scores, strict=True)):
                rows.append({"item": pair, "candidate": candidate, "judge": judge, "score": score, "game": game,
                             "position": slot, "source": record.get("source")})
    return rows, labels, skipped


def main(argv: list[str] | None = None) -> int:
    """Convert the files named on the command line; print what was written and skipped."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="JudgeBench output files (outputs/*.jsonl)")
    parser.add_argument("--ballots", type=Path, required=True, help="where to write the ballots (JSONL)")
    parser.add_argument("--labels", type=Path, required=True, help="where to write the right answers (JSONL)")
    parser.add_argument("--source", action="append", default=[],
                        help="keep only pairs of this source (e.g. mmlu-pro-law); repeat for several")
    args = parser.parse_args(argv)
    try:
        rows, labels, skipped = convert(args.files)
    except ConversionError as error:
        print(f"judgebench_ballots: {error}", file=sys.stderr)
        return 2
    if args.source:
        rows = [row for row in rows if row["source"] in args.source]
    items = {str(row["item"]) for row in rows}
    labels = {pair: best for pair, best in labels.items() if pair in items}
    if not rows:
        print("judgebench_ballots: no ballots to write (no file had a usable judgment"
              + (" of the sources chosen)" if args.source else ")"), file=sys.stderr)
        return 2
    args.ballots.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    args.labels.write_text("".join(json.dumps({"item": pair, "best": best}) + "\n"
                                   for pair, best in sorted(labels.items())), encoding="utf-8")
    judges = sorted({str(row["judge"]) for row in rows})
    print(f"wrote {len(rows)} scores of {len(items)} pairs by {len(judges)} judges ({', '.join(judges)}) to "
          f"{args.ballots}, and {len(labels)} labels to {args.labels}")
    for what, count in sorted(skipped.items()):
        print(f"skipped {count} {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
