"""Reading a reviewer's ballot: strictly, safely, and without ever raising.

A reviewer's reply is untrusted input. It may quote the answers it read, and
an answer may carry a ready-made ballot meant to be mistaken for the
reviewer's own ("schema smuggling"). It may also restate its instructions
first, verdict tag and placeholder JSON included, before giving its verdict.
So the candidates are read in a fixed order of preference (found by
:mod:`council.review.ballot_search`), and the first that validates is the
ballot:

1. the ``<verdict nonce="NONCE">`` blocks carrying this review's nonce, which
   no answer can contain (see :mod:`council.review.prompt`), the LAST first:
   an earlier block counts only when every later one fails (an echoed
   instruction, placeholder JSON, a broken or invalid final verdict);
2. then the ballot-shaped JSON objects of the reply (with a ``"ranking"`` or
   ``"evaluations"`` key, in a code fence or bare), the last first, each
   only if it is not copied from an answer: its text, with all whitespace
   removed, must not occur in any candidate's text.

A verdict whose JSON is copied from an answer is refused too, nonce or not,
and it ends the search: a reviewer that pasted a smuggled ballot into its
verdict has not reviewed anything, whatever it wrote before. (A later verdict
block that validates still wins, as it is tried first.) Nothing copied from
an answer ever counts, wherever it appears.

Each candidate is checked in full: the ranking is exactly the labels shown,
each once; every label has an evaluation with every rubric dimension scored
as a whole number within the scale; numbers are finite; no JSON key repeats.
The reviewer's own ``overall`` is kept for audit only: the overall score is
always recomputed with :meth:`Rubric.overall`.

The holistic fallback (ADR-016: a ballot that cannot be read as the rubric
falls back to its holistic score). An evaluation that leaves rubric
dimensions out but gives an ``overall`` from 0 to 10, or a label with a
holistic score in a top-level ``"scores"`` object (the ADR's holistic ballot,
``{"ranking": [...], "scores": {"Response A": 8, ...}}``), is read as
holistic for that answer: the dimensions it did score count, the holistic
score stands in for the ones it left out (:meth:`Rubric.unit_score`), and
``DimensionScores.missing`` names them. A dimension given a wrong value is
still an error, and so is a missing one with no holistic score to fall back
on. ``"scores"`` is read only for answers that need it.

When no candidate validates, the error names what was wrong with the best
one tried: the most preferred JSON object that was read but failed
validation, else the most preferred unreadable verdict block (so an echoed
instruction does not hide the real ballot's problem). With no candidate at
all it is "no verdict block found".

Decisions worth knowing:

- A float with an integral value (``7.0``) is accepted as ``7``: JSON does not
  tell the two apart and some serializers write one for the other. ``7.5``,
  ``"7"`` and ``true`` are refused.
- Labels and score keys match ignoring case and spacing (``response b``).
- Keys of an evaluation other than the scores, ``overall`` and ``notes`` are
  ignored; a reported ``overall`` that is not a number is ignored too, since
  it is never used for scoring. ``notes`` may be missing or null.
- The flags ``harmful`` and ``addresses_reviewers`` are read leniently
  (:mod:`council.review.flags`): absent, they flag nothing; never a failure.

Parsing is linear in the reply's length: string search and the C JSON
scanner, brace matching over at most the last 20,000 braces, and a bounded
number of attempts (32 verdict blocks, 32 objects). A 1 MB reply is read in
milliseconds, and deep nesting ends in a parse error rather than a crash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from council.review.ballot_search import ballot_spots
from council.review.ballot_values import (
    MAX_PROBLEMS,
    holistic_value,
    name_key,
    normalize_name,
    read_holistic_scores,
    show_value,
    whole_score,
)
from council.review.flags import NO_FLAGS, ReviewFlags, read_flags
from council.review.sandbox import neutralize
from council.rubrics.model import HOLISTIC_MAX, Criterion, CriterionValue, Rubric, holistic_unit

MAX_NOTES_CHARS = 2000
_NONCE = re.compile(r"^[0-9a-f]{8,64}$")


@dataclass(frozen=True)
class DimensionScores:
    """One answer's scores from one reviewer; ``overall`` is recomputed from the rubric.

    ``holistic`` is the reviewer's holistic score (0 to 10) when the ballot
    was read as holistic for this answer, and ``missing`` the dimensions it
    stood in for; None and empty when every dimension was scored.
    """

    scores: dict[str, CriterionValue]
    overall: float
    notes: str
    normalized: dict[str, float] = field(default_factory=dict)
    holistic: float | None = None
    missing: tuple[str, ...] = ()
    #: What the reviewer flagged in the answer (:mod:`council.review.flags`); nothing when it did not say.
    flags: ReviewFlags = NO_FLAGS


@dataclass(frozen=True)
class BallotParse:
    """The outcome of reading one reviewer's reply.

    When ``ok`` is false, ``error`` says what is wrong (for logs and the retry
    message) and the ranking and evaluations are empty.
    """

    ok: bool
    ranking: list[str]
    evaluations: dict[str, DimensionScores]
    error: str | None
    reported_overall: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class _Form:
    """What a ballot gives each answer under one rubric.

    Worked out once per rubric (:meth:`Rubric.memo`), not for every key of
    every entry of every ballot, which made reading a ballot slow.
    """

    criteria: tuple[Criterion, ...]  # the criteria reviewers score, in rubric order
    # Each criterion's valid values with their score, as Rubric.normalize gives it. A criterion takes one kind of
    # value (bool, int or level id), so True and 1 never share a table.
    worth: dict[str, dict[CriterionValue, float]]
    spelled: dict[str, str]  # each key of an entry as the prompt spells it, and its normalized form


def _form(rubric: Rubric) -> _Form:
    """The form of ``rubric``'s ballots, made on first use."""

    def make() -> _Form:
        criteria = tuple(rubric.llm_criteria())
        by_id = {c.id: c for c in rubric.criteria}
        worth = {c.id: {value: rubric.normalize(by_id[c.id], value) for value in _valid_values(c, rubric)}
                 for c in criteria}
        spelled = {key: normalize_name(key) for key in [*(c.id for c in criteria), "overall", "notes"]}
        return _Form(criteria, worth, spelled)

    return rubric.memo("ballot.form", make)


def _valid_values(criterion: Criterion, rubric: Rubric) -> list[CriterionValue]:
    """Every value :func:`_criterion_value` may return for ``criterion``: a few, as the scale is whole numbers."""
    if criterion.kind == "checklist":
        return [False, True]
    if criterion.kind == "levels":
        return [level.id for level in criterion.levels or []]
    return list(range(rubric.scale.min, rubric.scale.max + 1))


def _squash(text: str) -> str:
    return "".join(neutralize(text).split())


def _failed(error: str) -> BallotParse:
    return BallotParse(ok=False, ranking=[], evaluations={}, error=error)


def _criterion_value(criterion: Criterion, value: Any, rubric: Rubric, form: _Form) -> CriterionValue | None:
    """The ballot's value for one criterion, or None when it is not the kind the criterion takes."""
    if criterion.kind == "checklist":
        return value if isinstance(value, bool) else None
    if criterion.kind == "levels":
        level = normalize_name(value) if isinstance(value, str) else None
        return level if level in form.worth[criterion.id] else None
    return whole_score(value, rubric.scale.min, rubric.scale.max)


def _expected(criterion: Criterion, rubric: Rubric) -> str:
    if criterion.kind == "checklist":
        return "true or false"
    if criterion.kind == "levels":
        return "one of " + ", ".join(level.id for level in criterion.levels or [])
    return f"an integer from {rubric.scale.min} to {rubric.scale.max}"


def _read_ranking(
    value: dict[str, Any], canonical: dict[str, str], spelled: dict[str, str], labels: list[str], problems: list[str]
) -> list[str]:
    if "ranking" not in value:
        problems.append("ranking is missing")
        return []
    raw = value["ranking"]
    if not isinstance(raw, list):
        problems.append(f"ranking must be a list of labels, got {show_value(raw)}")
        return []
    if len(raw) > len(labels):
        problems.append(f"ranking has {len(raw)} entries for {len(labels)} answers")
    ranking: list[str] = []
    for index, item in enumerate(raw[: len(labels) + MAX_PROBLEMS]):
        label = canonical.get(name_key(item, spelled)) if isinstance(item, str) else None
        if not isinstance(item, str):
            problems.append(f"ranking[{index}] must be a label, got {show_value(item)}")
        elif label is None:
            problems.append(f"ranking has an unknown label {show_value(item)}")
        elif label in ranking:
            problems.append(f"ranking lists {label} more than once")
        else:
            ranking.append(label)
    problems.extend(f"ranking is missing {label}" for label in labels if label not in ranking)
    return ranking


def _holistic(rubric: Rubric, scores: dict[str, CriterionValue], normalized: dict[str, float], notes: str,
              holistic: float, missing: list[str], flags: ReviewFlags = NO_FLAGS) -> DimensionScores:
    overall = round(rubric.unit_score(normalized, holistic=holistic_unit(holistic)), 4)
    return DimensionScores(scores, overall, notes[:MAX_NOTES_CHARS], normalized, holistic, tuple(missing), flags)


def _read_evaluations(
    value: dict[str, Any], canonical: dict[str, str], spelled: dict[str, str], labels: list[str], rubric: Rubric,
    problems: list[str],
) -> tuple[dict[str, DimensionScores], dict[str, float]]:
    form = _form(rubric)
    dimension_ids = [c.id for c in form.criteria]
    fallback, fallback_problems = read_holistic_scores(value, canonical, spelled, labels)
    used_fallback = False
    evaluations: dict[str, DimensionScores] = {}
    reported: dict[str, float] = {}

    def from_fallback(label: str) -> bool:
        nonlocal used_fallback
        if label not in fallback:
            return False
        used_fallback = True
        evaluations[label] = _holistic(rubric, {}, {}, "", fallback[label], dimension_ids)
        reported[label] = fallback[label]
        return True

    if "evaluations" not in value:
        if "scores" not in value:
            problems.append("evaluations is missing")
            return {}, {}
        # The ADR's holistic ballot: a ranking and a score per answer, no rubric dimensions at all.
        problems.extend(fallback_problems)
        problems.extend(f"scores is missing {label}" for label in labels if not from_fallback(label))
        return evaluations, reported
    raw = value["evaluations"]
    if not isinstance(raw, dict):
        problems.append(f"evaluations must be an object with one entry per label, got {show_value(raw)}")
        return {}, {}
    if len(raw) > len(labels):
        problems.append(f"evaluations has {len(raw)} entries for {len(labels)} answers")
    entries: dict[str, Any] = {}
    for key in list(raw)[: len(labels) + MAX_PROBLEMS]:
        label = canonical.get(name_key(key, spelled))
        if label is None:
            problems.append(f"evaluations has an unknown label {show_value(key)}")
        elif label in entries:
            problems.append(f"evaluations lists {label} more than once")
        else:
            entries[label] = raw[key]
    problems.extend(f"evaluations is missing {label}" for label in labels
                    if label not in entries and not from_fallback(label))
    for label in labels:
        if label not in entries:
            continue
        entry = entries[label]
        if not isinstance(entry, dict):
            problems.append(f"evaluations.{label} must be an object, got {show_value(entry)}")
            continue
        fields: dict[str, Any] = {}
        for key, item in entry.items():
            name = name_key(key, form.spelled)
            if name in fields:
                problems.append(f"evaluations.{label} has {show_value(key)} twice")
            fields[name] = item
        scores: dict[str, CriterionValue] = {}
        missing: list[str] = []
        for criterion in form.criteria:
            # fields are keyed by the normalized spelling; an id is kept as written, so "Bug Detection" is looked
            # up as "bug detection" (the meta-rubric refuses two ids that differ only so).
            field = form.spelled[criterion.id]
            if field not in fields:
                missing.append(criterion.id)
                continue
            criterion_value = _criterion_value(criterion, fields[field], rubric, form)
            if criterion_value is None:
                problems.append(
                    f"evaluations.{label}.{criterion.id} must be {_expected(criterion, rubric)}, "
                    f"got {show_value(fields[field])}"
                )
            else:
                scores[criterion.id] = criterion_value
        notes = fields.get("notes")
        notes = "" if notes is None else notes
        if not isinstance(notes, str):
            problems.append(f"evaluations.{label}.notes must be a string, got {show_value(notes)}")
            continue
        claimed = fields.get("overall")
        if isinstance(claimed, (int, float)) and not isinstance(claimed, bool):
            reported[label] = float(claimed)
        normalized = {cid: form.worth[cid][value] for cid, value in scores.items()}
        if not missing:
            if len(scores) == len(form.criteria):
                overall = round(rubric.unit_score(normalized), 4)
                evaluations[label] = DimensionScores(scores, overall, notes[:MAX_NOTES_CHARS], normalized,
                                                     flags=read_flags(fields))
            continue
        holistic = holistic_value(claimed)
        if holistic is None and label in fallback:
            holistic, used_fallback = fallback[label], True
        if holistic is None:
            why = ("" if claimed is None else
                   f" (its overall, {show_value(claimed)}, is not a holistic score from 0 to {HOLISTIC_MAX})")
            problems.extend(f"evaluations.{label}.{cid} is missing{why}" for cid in missing)
        elif len(scores) + len(missing) == len(form.criteria):
            reported[label] = holistic
            evaluations[label] = _holistic(rubric, scores, normalized, notes, holistic, missing, read_flags(fields))
    if used_fallback:
        problems.extend(fallback_problems)
    return evaluations, reported


def _read_ballot(value: dict[str, Any], labels: list[str], rubric: Rubric) -> BallotParse:
    canonical = {normalize_name(label): label for label in labels}
    spelled = {label: normalize_name(label) for label in labels}
    problems: list[str] = []
    ranking = _read_ranking(value, canonical, spelled, labels, problems)
    evaluations, reported = _read_evaluations(value, canonical, spelled, labels, rubric, problems)
    if problems:
        more = len(problems) - MAX_PROBLEMS
        return _failed("; ".join(problems[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else ""))
    return BallotParse(ok=True, ranking=ranking, evaluations=evaluations, error=None, reported_overall=reported)


def parse_ballot(
    text: str, labels: Sequence[str], rubric: Rubric, nonce: str, candidate_texts: Sequence[str] = ()
) -> BallotParse:
    """Read and validate the ballot in a reviewer's reply ``text``. Never raises.

    ``labels`` are the labels the reviewer was shown; ``candidate_texts`` the
    answers it read, so that a ballot copied from one of them is never taken
    as the reviewer's own.
    """
    try:
        if not isinstance(text, str):
            return _failed(f"the reply is not text, got {type(text).__name__}")
        labels = list(labels)
        quoted = [squashed for squashed in map(_squash, candidate_texts) if squashed]

        def is_quoted(source: str) -> bool:
            squashed = _squash(source)
            return any(squashed in candidate for candidate in quoted)

        usable_nonce = nonce if isinstance(nonce, str) and _NONCE.match(nonce) else None
        best: BallotParse | None = None  # the first failure of the furthest kind
        best_read = False
        for spot in ballot_spots(text, usable_nonce, is_quoted):
            if spot.kind == "copied":
                return _failed(spot.problem)
            result = _read_ballot(spot.value, labels, rubric) if spot.kind == "read" else _failed(spot.problem)
            if result.ok:
                return result
            if best is None or (spot.kind == "read" and not best_read):
                best, best_read = result, spot.kind == "read"
        return best if best is not None else _failed("no verdict block found")
    except Exception as exc:
        return _failed(f"the ballot could not be read ({type(exc).__name__})")
