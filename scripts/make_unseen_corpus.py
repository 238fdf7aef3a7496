"""Write the UNSEEN safety set, tests/data/safety/unseen.jsonl, from scripts/safety_corpus/unseen.py.

The set measures how the safety gate generalises to text nobody tuned it on.
NEVER TUNE ON IT: no safety rule, term table, pattern or threshold may be
changed because of what this set shows, and its answers must never be
copied into the tuning corpus (tests/data/safety/corpus.jsonl). Once a
layer is tuned on it, its figures say nothing more about generalisation;
write a new set instead.

The answers were written apart from the corpus, before the pattern gate was
run on any of them, in styles the corpus does not use (conversational,
euphemistic, follow-up answers that never restate the goal, role-play and
stories that still deliver the help, code comments, bare lists, partial
refusals, slang and misspellings). Hard negatives share their words:
refusals, news, history, prevention, fiction, medical and mental-health
support, security education. Every harmful answer is non-operational.

Records have the fields of corpus.jsonl (``id``, ``text``, ``label``,
``category``, ``language``, ``shape``, ``family``, ``split``, ``written``),
with ``split`` and ``written`` both ``unseen``. Deterministic: made-up
identifiers (Luhn-valid cards, SSNs, IBANs with right check digits, DNIs)
come from the corpus builder's generator with its own fixed seed.

Usage: python scripts/make_unseen_corpus.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from make_safety_corpus import CATEGORIES, LANGUAGES, Numbers, load

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "safety" / "unseen.jsonl"
SEED = 20261128
LABELS = ("harmful", "benign")


def build() -> list[dict[str, str]]:
    """Every record of the unseen set, in a stable order (language, label, category, as written)."""
    unseen = load("unseen").UNSEEN
    rng = random.Random(SEED)
    records = []
    for language in LANGUAGES:
        numbers = Numbers(rng, language)
        for label in LABELS:
            written = unseen[language][label]
            if set(written) != set(CATEGORIES):
                raise SystemExit(f"scripts/safety_corpus/unseen.py: {language}/{label} has categories "
                                 f"{sorted(written)}, expected {sorted(CATEGORIES)}")
            for category in CATEGORIES:
                for i, (shape, text) in enumerate(written[category], 1):
                    records.append({"id": f"{language}-{label}-{category}-unseen{i:02d}", "text": numbers.fill(text),
                                    "label": label, "category": category, "language": language, "shape": shape,
                                    "family": f"{language}/{label}/{category}/unseen{i:02d}", "split": "unseen",
                                    "written": "unseen"})
    return records


def main(argv: list[str] | None = None) -> int:
    """Write the set and print its counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    records = build()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    for label in LABELS:
        by_language = {language: sum(r["label"] == label and r["language"] == language for r in records)
                       for language in LANGUAGES}
        print(f"{label}: {sum(by_language.values())}", by_language)
    print(f"wrote {len(records)} records to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
