"""Reading a reviewer's ballot: strictly, safely, and without ever raising.

A reviewer's reply is untrusted input. It may quote the answers it read, and
an answer may carry a ready-made ballot meant to be mistaken for the
reviewer's own ("schema smuggling"). So the ballot is taken from one place:

1. the LAST ``<verdict nonce="NONCE">`` block carrying this review's nonce,
   which no answer can contain (see :mod:`council.review.prompt`);
2. only if there is none, the last ballot-shaped JSON object in the reply (in
   a code fence or bare) that is not copied from an answer: its text, with
   all whitespace removed, must not occur in any candidate's text.

A verdict whose JSON is copied from an answer is refused too, nonce or not:
a reviewer that pasted a smuggled ballot has not reviewed anything.

Then everything is checked: the ranking is exactly the labels shown, each
once; every label has an evaluation with every rubric dimension scored as a
whole number within the scale; numbers are finite; no JSON key repeats. The
reviewer's own ``overall`` is kept for audit only: the overall score is
always recomputed with :meth:`Rubric.overall`.

Decisions worth knowing:

- A float with an integral value (``7.0``) is accepted as ``7``: JSON does not
  tell the two apart and some serializers write one for the other. ``7.5``,
  ``"7"`` and ``true`` are refused.
- Labels and score keys match ignoring case and spacing (``response b``).
- Keys of an evaluation other than the scores, ``overall`` and ``notes`` are
  ignored; a reported ``overall`` that is not a number is ignored too, since
  it is never used for scoring. ``notes`` may be missing or null.

Parsing is linear in the reply's length: string search and the C JSON
scanner, brace matching over at most the last 20,000 braces, and a bounded
number of attempts. A 1 MB reply is read in milliseconds, and deep nesting
ends in a parse error rather than a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from council import strict_json
from council.review.sandbox import neutralize
from council.rubrics.model import Criterion, CriterionValue, Rubric

MAX_NOTES_CHARS = 2000
_MAX_ATTEMPTS = 32  # fallback objects tried, last first
_MAX_BRACES = 20_000  # braces the fallback matches, counted from the end
_MAX_PROBLEMS = 5
_NONCE = re.compile(r"^[0-9a-f]{8,64}$")
_TAG_BEFORE_NONCE = re.compile(r"<\s*verdict\s+nonce\s*=\s*[\"']?$", re.IGNORECASE)
_TAG_AFTER_NONCE = re.compile(r"[\"']?\s*>")
_BEFORE_JSON = re.compile(r"\s*(?:```[A-Za-z]*[ \t]*\r?\n?\s*)?")
_BRACES = re.compile(r"[{}]")


@dataclass(frozen=True)
class DimensionScores:
    """One answer's scores from one reviewer; ``overall`` is recomputed from the rubric."""

    scores: dict[str, CriterionValue]
    overall: float
    notes: str
    normalized: dict[str, float] = field(default_factory=dict)


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


class _Unreadable(ValueError):
    """The ballot text cannot be used; the message says why."""


def _decode(text: str, start: int) -> tuple[Any, int]:
    """The JSON value starting at ``start`` and where it ends; ``_Unreadable`` if there is none."""
    try:
        return strict_json.DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        line = text.count("\n", start, exc.pos) + 1
        column = exc.pos - (text.rfind("\n", start, exc.pos) + 1 if line > 1 else start) + 1
        raise _Unreadable(f"{exc.msg} (line {line}, column {column})") from None
    except RecursionError:
        raise _Unreadable("it is nested too deeply") from None
    except _Unreadable:
        raise
    except ValueError as exc:  # e.g. an integer too long to convert
        raise _Unreadable(str(exc)) from None


def _show(value: Any) -> str:
    """A short, safe rendering of a value for an error message."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _normalize(name: str) -> str:
    return " ".join(name.split()).casefold()


def _squash(text: str) -> str:
    return "".join(neutralize(text).split())


def _failed(error: str) -> BallotParse:
    return BallotParse(ok=False, ranking=[], evaluations={}, error=error)


def _find_verdict(text: str, nonce: str) -> int | None:
    """Where the JSON of the last verdict tag carrying ``nonce`` begins, or None."""
    end = len(text)
    while (index := text.rfind(nonce, 0, end)) >= 0:
        if _TAG_BEFORE_NONCE.search(text, max(0, index - 40), index):
            after = _TAG_AFTER_NONCE.match(text, index + len(nonce))
            if after is not None:
                return after.end()
        end = index + len(nonce) - 1
    return None


def _tail_start(text: str) -> int:
    """Where the tail of ``text`` holding at most ``_MAX_BRACES`` braces begins.

    Counting runs in C, a block at a time, so a reply made of braces costs
    no more than a normal one: the ballot is at the end of a reply anyway.
    """
    start, count = len(text), 0
    while start > 0:
        block = max(0, start - 4096)
        count += text.count("{", block, start) + text.count("}", block, start)
        if count > _MAX_BRACES:
            break
        start = block
    return start


def _brace_spans(text: str) -> list[tuple[int, int]]:
    """Matched ``{ ... }`` spans in the tail of ``text``, in the order they close.

    A stack (not a depth counter) so that a stray ``{`` in prose cannot swallow
    the object after it: the later pair still matches.
    """
    stack: list[int] = []
    spans: list[tuple[int, int]] = []
    for match in _BRACES.finditer(text, _tail_start(text)):
        if match.group() == "{":
            stack.append(match.start())
        elif stack:
            spans.append((stack.pop(), match.end()))
    return spans


def _last_own_object(text: str, is_quoted: Callable[[str], bool]) -> dict[str, Any] | None:
    """The last ballot-shaped JSON object in ``text`` that ``is_quoted`` does not reject."""
    bound = len(text)
    attempts = 0
    for start, end in reversed(_brace_spans(text)):
        if end > bound:
            continue  # inside an object already read
        attempts += 1
        if attempts > _MAX_ATTEMPTS:
            break
        try:
            value, stop = _decode(text, start)
        except _Unreadable:
            continue  # not JSON here; an object nested inside may still be
        bound = start
        if isinstance(value, dict) and ("ranking" in value or "evaluations" in value) \
                and not is_quoted(text[start:stop]):
            return value
    return None


def _score(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and low <= value <= high:
        return value
    return None


def _criterion_value(criterion: Criterion, value: Any, rubric: Rubric) -> CriterionValue | None:
    """The ballot's value for one criterion, or None when it is not the kind the criterion takes."""
    if criterion.kind == "checklist":
        return value if isinstance(value, bool) else None
    if criterion.kind == "levels":
        ids = {level.id for level in criterion.levels or []}
        return _normalize(value) if isinstance(value, str) and _normalize(value) in ids else None
    return _score(value, rubric.scale.min, rubric.scale.max)


def _expected(criterion: Criterion, rubric: Rubric) -> str:
    if criterion.kind == "checklist":
        return "true or false"
    if criterion.kind == "levels":
        return "one of " + ", ".join(level.id for level in criterion.levels or [])
    return f"an integer from {rubric.scale.min} to {rubric.scale.max}"


def _read_ranking(
    value: dict[str, Any], canonical: dict[str, str], labels: list[str], problems: list[str]
) -> list[str]:
    if "ranking" not in value:
        problems.append("ranking is missing")
        return []
    raw = value["ranking"]
    if not isinstance(raw, list):
        problems.append(f"ranking must be a list of labels, got {_show(raw)}")
        return []
    if len(raw) > len(labels):
        problems.append(f"ranking has {len(raw)} entries for {len(labels)} answers")
    ranking: list[str] = []
    for index, item in enumerate(raw[: len(labels) + _MAX_PROBLEMS]):
        label = canonical.get(_normalize(item)) if isinstance(item, str) else None
        if not isinstance(item, str):
            problems.append(f"ranking[{index}] must be a label, got {_show(item)}")
        elif label is None:
            problems.append(f"ranking has an unknown label {_show(item)}")
        elif label in ranking:
            problems.append(f"ranking lists {label} more than once")
        else:
            ranking.append(label)
    problems.extend(f"ranking is missing {label}" for label in labels if label not in ranking)
    return ranking


def _read_evaluations(
    value: dict[str, Any], canonical: dict[str, str], labels: list[str], rubric: Rubric, problems: list[str]
) -> tuple[dict[str, DimensionScores], dict[str, float]]:
    if "evaluations" not in value:
        problems.append("evaluations is missing")
        return {}, {}
    raw = value["evaluations"]
    if not isinstance(raw, dict):
        problems.append(f"evaluations must be an object with one entry per label, got {_show(raw)}")
        return {}, {}
    if len(raw) > len(labels):
        problems.append(f"evaluations has {len(raw)} entries for {len(labels)} answers")
    entries: dict[str, Any] = {}
    for key in list(raw)[: len(labels) + _MAX_PROBLEMS]:
        label = canonical.get(_normalize(key))
        if label is None:
            problems.append(f"evaluations has an unknown label {_show(key)}")
        elif label in entries:
            problems.append(f"evaluations lists {label} more than once")
        else:
            entries[label] = raw[key]
    problems.extend(f"evaluations is missing {label}" for label in labels if label not in entries)
    evaluations: dict[str, DimensionScores] = {}
    reported: dict[str, float] = {}
    by_id = {c.id: c for c in rubric.criteria}
    for label in labels:
        if label not in entries:
            continue
        entry = entries[label]
        if not isinstance(entry, dict):
            problems.append(f"evaluations.{label} must be an object, got {_show(entry)}")
            continue
        fields: dict[str, Any] = {}
        for key, item in entry.items():
            if _normalize(key) in fields:
                problems.append(f"evaluations.{label} has {_show(key)} twice")
            fields[_normalize(key)] = item
        scores: dict[str, CriterionValue] = {}
        for criterion in rubric.llm_criteria():
            if criterion.id not in fields:
                problems.append(f"evaluations.{label}.{criterion.id} is missing")
                continue
            criterion_value = _criterion_value(criterion, fields[criterion.id], rubric)
            if criterion_value is None:
                problems.append(
                    f"evaluations.{label}.{criterion.id} must be {_expected(criterion, rubric)}, "
                    f"got {_show(fields[criterion.id])}"
                )
            else:
                scores[criterion.id] = criterion_value
        notes = fields.get("notes")
        notes = "" if notes is None else notes
        if not isinstance(notes, str):
            problems.append(f"evaluations.{label}.notes must be a string, got {_show(notes)}")
            continue
        claimed = fields.get("overall")
        if isinstance(claimed, (int, float)) and not isinstance(claimed, bool):
            reported[label] = float(claimed)
        if len(scores) == len(rubric.llm_criteria()):
            normalized = {cid: rubric.normalize(by_id[cid], value) for cid, value in scores.items()}
            overall = round(rubric.unit_score(normalized), 4)
            evaluations[label] = DimensionScores(scores, overall, notes[:MAX_NOTES_CHARS], normalized)
    return evaluations, reported


def _read_ballot(value: dict[str, Any], labels: list[str], rubric: Rubric) -> BallotParse:
    canonical = {_normalize(label): label for label in labels}
    problems: list[str] = []
    ranking = _read_ranking(value, canonical, labels, problems)
    evaluations, reported = _read_evaluations(value, canonical, labels, rubric, problems)
    if problems:
        more = len(problems) - _MAX_PROBLEMS
        return _failed("; ".join(problems[:_MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else ""))
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

        start = _find_verdict(text, nonce) if isinstance(nonce, str) and _NONCE.match(nonce) else None
        if start is not None:
            json_start = _BEFORE_JSON.match(text, start).end()  # type: ignore[union-attr]
            if not text.startswith("{", json_start):
                return _failed("the verdict block does not start with a JSON object")
            try:
                value, stop = _decode(text, json_start)
            except _Unreadable as exc:
                return _failed(f"the verdict block is not valid JSON: {exc}")
            if is_quoted(text[json_start:stop]):
                return _failed("the verdict is copied from one of the answers under review")
            return _read_ballot(value, labels, rubric)
        found = _last_own_object(text, is_quoted)
        if found is None:
            return _failed("no verdict block found")
        return _read_ballot(found, labels, rubric)
    except Exception as exc:
        return _failed(f"the ballot could not be read ({type(exc).__name__})")
