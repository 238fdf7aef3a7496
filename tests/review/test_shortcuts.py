"""The review layer's shortcuts give what the plain definitions give.

Neutralizing skips text with nothing to rewrite, templates are cut at their
placeholders once, and what depends on the rubric alone (its prompt text, the
form of its ballots) is worked out once per rubric. None of it may change a
result, and nothing worked out for one rubric may be used for another.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from council.review.ballot import parse_ballot
from council.review.prompt import Candidate, labels_for, render_review_prompt
from council.review.sandbox import fill_template, neutralize
from council.rubrics.load import load_rubric
from council.rubrics.model import Scale
from council.types import ChatMessage

DEFAULT = load_rubric("default")
CODE_REVIEW = load_rubric("code_review")  # levels, a scale of 1-5 and a checklist item
LABELS = labels_for(2)
NONCE = "5f1e0c9a7b3d2e64"
ANGLES = {"<": "\u2039", ">": "\u203a"}


def neutralized_by_definition(text: str) -> str:
    """Both substitutions over the whole text, as neutralize is documented."""
    text = re.sub("[\U000e0000-\U000e007f]", "", text)
    return re.sub(r"[<>]{2,}|<(?=\|)|(?<=\|)>|<(?=/?verdict)",
                  lambda match: match.group().translate(str.maketrans(ANGLES)), text, flags=re.IGNORECASE)


MARKER_PIECES = ["<", ">", "|", "/", "verdict", "VERDİCT", "verdıct", "\U000e0041", "\U000e007f", "\U000e0080", "é",
                 "‹", " ", "\n", "x"]


@given(st.lists(st.sampled_from(MARKER_PIECES), max_size=30).map("".join) | st.text(max_size=200))
@settings(max_examples=500, deadline=None)
def test_neutralize_gives_what_its_definition_gives(text):
    assert neutralize(text) == neutralized_by_definition(text)


PLACEHOLDER = st.sampled_from(["{a}", "{b}", "{nonce}", "{", "}", "{A}", "{}", "x", "\n"])


@given(st.lists(PLACEHOLDER, max_size=20).map("".join), st.sampled_from(["{a}", "{b}", "", "\\1", "\\g<0>"]))
@settings(max_examples=300, deadline=None)
def test_fill_template_gives_what_one_substitution_gives(template, value):
    values = {"a": value, "b": "B", "nonce": "N"}
    names = set(re.findall(r"\{([a-z_]+)\}", template))
    if names <= set(values):
        expected = re.sub(r"\{([a-z_]+)\}", lambda match: values[match.group(1)], template)
        assert fill_template(template, values) == expected
    else:
        with pytest.raises(KeyError, match=", ".join(sorted(names - set(values)))):
            fill_template(template, values)


def prompt(rubric) -> str:
    messages = render_review_prompt([ChatMessage(role="user", content="Review this code.")],
                                    [Candidate(label, "An answer.") for label in LABELS], rubric, NONCE)
    return "\n".join(m.content for m in messages)


def verdict(rubric, value) -> str:
    entry = {**dict.fromkeys(rubric.dimension_ids(), value), "overall": 5, "notes": "n"}
    data = {"ranking": LABELS, "evaluations": dict.fromkeys(LABELS, entry)}
    return f'<verdict nonce="{NONCE}">{json.dumps(data)}</verdict>'


def test_each_rubric_gets_its_own_prompt_and_ballot_form():
    assert "bug_detection (level: missed|partial|found)" in prompt(CODE_REVIEW)
    assert "accuracy (1-10)" in prompt(DEFAULT) and "bug_detection" not in prompt(DEFAULT)
    assert parse_ballot(verdict(DEFAULT, 9), LABELS, DEFAULT, NONCE).ok
    result = parse_ballot(verdict(DEFAULT, 9), LABELS, CODE_REVIEW, NONCE)
    # Another rubric's ballot scores none of this one's criteria: only its overall is read (ADR-016's fallback).
    assert result.ok and [e.missing for e in result.evaluations.values()] == [tuple(CODE_REVIEW.dimension_ids())] * 2
    without_overall = verdict(DEFAULT, 9).replace('"overall": 5, ', "")
    result = parse_ballot(without_overall, LABELS, CODE_REVIEW, NONCE)
    assert result.error and "evaluations.Response A.bug_detection is missing" in result.error


def test_a_changed_copy_of_a_rubric_is_not_read_with_the_original_form():
    assert parse_ballot(verdict(DEFAULT, 9), LABELS, DEFAULT, NONCE).ok
    narrow = DEFAULT.model_copy(update={"scale": Scale(min=1, max=5)})
    assert "accuracy (1-5)" in prompt(narrow) and "accuracy (1-10)" in prompt(DEFAULT)
    error = parse_ballot(verdict(narrow, 9), LABELS, narrow, NONCE).error
    assert error and error.startswith("evaluations.Response A.accuracy must be an integer from 1 to 5, got 9")
    result = parse_ballot(verdict(narrow, 5), LABELS, narrow, NONCE)
    assert result.ok and result.evaluations["Response A"].normalized["accuracy"] == 1.0


def test_levels_and_checklist_items_are_scored_as_the_rubric_scores_them():
    *levelled, scored, checklist = CODE_REVIEW.dimension_ids()
    assert [CODE_REVIEW.criterion(cid).kind for cid in CODE_REVIEW.dimension_ids()] == [
        "levels", "levels", "scored", "checklist"]
    entry = {levelled[0]: " FOUND ", levelled[1].upper(): "Vague", scored: 4.0, checklist: False}
    data = {"ranking": LABELS, "evaluations": dict.fromkeys(LABELS, entry)}
    result = parse_ballot(f'<verdict nonce="{NONCE}">{json.dumps(data)}</verdict>', LABELS, CODE_REVIEW, NONCE)
    assert result.ok, result.error
    scores = result.evaluations["Response A"].scores
    assert scores == {levelled[0]: "found", levelled[1]: "vague", scored: 4, checklist: False}
    expected = {c.id: CODE_REVIEW.normalize(c, scores[c.id]) for c in CODE_REVIEW.llm_criteria()}
    assert result.evaluations["Response A"].normalized == expected
    assert result.evaluations["Response A"].overall == CODE_REVIEW.overall(scores)
