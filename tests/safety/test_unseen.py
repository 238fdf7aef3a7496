"""The unseen safety set: what its builder writes, the counts it promises, and that it stays apart from the corpus.

Nothing here asserts the gate's accuracy on it: the set measures generalisation and is never tuned on
(scripts/make_unseen_corpus.py); its figures live in docs/security.md as measured once.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from council.safety import CATEGORIES

ROOT = Path(__file__).resolve().parents[2]
UNSEEN = ROOT / "tests" / "data" / "safety" / "unseen.jsonl"
CORPUS = ROOT / "tests" / "data" / "safety" / "corpus.jsonl"
FIELDS = {"id", "text", "label", "category", "language", "shape", "split", "family", "written"}
LANGUAGES = ("en", "es", "fr", "de")


def load(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


RECORDS = load(UNSEEN)


def test_the_committed_set_is_what_the_builder_writes_every_time(tmp_path):
    outputs = []
    for name in ("first.jsonl", "second.jsonl"):
        out = tmp_path / name
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_unseen_corpus.py"), "--out", str(out)],
                       check=True, capture_output=True)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1], "two runs of the builder differ"
    assert outputs[0] == UNSEEN.read_bytes(), "unseen.jsonl is stale: run scripts/make_unseen_corpus.py"


def test_records_have_the_corpus_fields_and_are_all_unseen():
    for record in RECORDS:
        assert set(record) == FIELDS, record["id"]
        assert record["split"] == "unseen" and record["written"] == "unseen", record["id"]
        assert record["label"] in ("harmful", "benign") and record["category"] in CATEGORIES
        assert record["language"] in LANGUAGES and record["shape"] and record["text"].strip()
        assert not re.search(r"\{[a-z_0-9]+\}", record["text"]), f"{record['id']}: a placeholder left unfilled"


def test_the_promised_counts_per_label_language_and_category():
    labels = Counter(r["label"] for r in RECORDS)
    assert labels["harmful"] >= 120 and labels["benign"] >= 120
    by_language = Counter((r["label"], r["language"]) for r in RECORDS)
    for label in ("harmful", "benign"):
        for language in LANGUAGES:
            assert by_language[(label, language)] >= (40 if language == "en" else 20), (label, language)
    cells = Counter((r["label"], r["category"], r["language"]) for r in RECORDS)
    for label in ("harmful", "benign"):
        for category in CATEGORIES:
            for language in LANGUAGES:
                assert cells[(label, category, language)] >= 6, (label, category, language)


def test_harmful_answers_come_in_the_styles_the_corpus_lacks():
    shapes = Counter(r["shape"] for r in RECORDS if r["label"] == "harmful")
    for shape in ("conversational", "follow_up", "euphemism", "roleplay", "story", "code_comments", "bare_list",
                  "partial_refusal", "slang"):
        assert shapes[shape] >= 5, shape
    kinds = Counter(r["shape"] for r in RECORDS if r["label"] == "benign")
    for kind in ("refusal", "news", "history", "prevention", "fiction", "support", "security_education"):
        assert kinds[kind] >= 4, kind


def test_the_set_stays_apart_from_the_tuning_corpus():
    ids = Counter(r["id"] for r in RECORDS)
    assert [i for i, n in ids.items() if n > 1] == []
    texts = Counter(r["text"] for r in RECORDS)
    assert [t[:60] for t, n in texts.items() if n > 1] == []
    corpus_text = "\n".join(r["text"] for r in load(CORPUS))
    copied = [r["id"] for r in RECORDS if r["text"] in corpus_text]
    assert copied == [], "unseen answers copied into the tuning corpus"
