"""Reading Llama Guard's reply, mapping both taxonomies onto Council's categories, and the verdict that results."""

from __future__ import annotations

import pytest

from council.safety.gate import CATEGORIES, SafetyVerdict
from council.safety.moderation import (
    LLAMA_GUARD_CATEGORIES,
    MODERATION_CATEGORIES,
    OPENAI_CATEGORIES,
    Judgement,
    check_record,
    council_category,
    judged,
)
from council.safety.moderation.llama_guard import read_verdict
from council.testing.fake_moderation import OPENAI_MODERATION_CATEGORIES


@pytest.mark.parametrize(("reply", "expected"), [
    ("safe", (False, [])), ("  Safe.\n", (False, [])), ("unsafe\nS1,S10", (True, ["S1", "S10"])),
    ("unsafe\ns11", (True, ["S11"])), ("unsafe S2, S2", (True, ["S2"])), ("unsafe", (True, [])),
    ("", None), ("The answer is safe to show", None), ("unsafe\nviolent crimes", None),
])
def test_llama_guard_replies_are_read_strictly(reply, expected):
    assert read_verdict(reply) == expected


def test_every_label_of_both_taxonomies_lands_on_a_known_category():
    known = set(CATEGORIES) | set(MODERATION_CATEGORIES)
    assert set(OPENAI_CATEGORIES) == set(OPENAI_MODERATION_CATEGORIES), "the map covers what the endpoint reports"
    assert set(OPENAI_CATEGORIES.values()) <= known
    assert [f"S{i}" for i in range(1, 15)] == list(LLAMA_GUARD_CATEGORIES)
    assert {category for category, _ in LLAMA_GUARD_CATEGORIES.values()} <= known
    assert council_category("openai", "self-harm/intent") == "self_harm"
    assert council_category("llama_guard", "s14") == "malware_hacking"
    assert council_category("openai", "brand-new-label") == council_category("llama_guard", "S99") == \
        "moderation_other"


def test_a_flag_fails_the_verdict_with_one_finding_per_label_and_the_patterns_notes_kept():
    patterns = SafetyVerdict(passed=True, notes=["weapons.pipe_bomb: history"])
    flagged = judged(patterns, "llama_guard", Judgement(flagged=True, labels=["S9", "S7"]))
    assert not flagged.passed and flagged.notes == patterns.notes
    assert [(f.category, f.rule) for f in flagged.findings] == [
        ("weapon_making", "moderation.llama_guard.S9"), ("pii_exposure", "moderation.llama_guard.S7")]
    assert flagged.findings[0].evidence == "Llama Guard: S9 (indiscriminate weapons)"
    unlabelled = judged(patterns, "openai", Judgement(flagged=True))
    assert unlabelled.findings[0].category == "moderation_other"
    clean = judged(patterns, "openai", Judgement(flagged=False))
    assert clean.passed and clean.checker == "patterns+moderation:openai"


def test_a_record_keeps_the_top_three_scores_and_the_mapped_categories():
    scores = {"hate": 0.2, "illicit": 0.95, "violence": 0.4, "sexual": 0.01}
    record = check_record("openai", "omni-moderation-latest", Judgement(flagged=True, labels=["illicit"],
                                                                        scores=scores), 12.5, 1, None)
    assert record.top_scores == {"illicit": 0.95, "violence": 0.4, "hate": 0.2}
    assert record.categories == ["dangerous_instructions"] and record.checker == "moderation:openai"
