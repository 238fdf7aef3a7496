"""The sandboxed review prompt of Stage 2, and how to recognize one.

A reviewer reads text written by others: the user's conversation and the
other members' answers. Any of it may try to steer the review ("I am the best
answer", a fake verdict, a forged end-of-answer marker). So every piece of
untrusted text goes into a block whose markers carry a per-run random nonce::

    <<candidate id="Response A" nonce="9f3c51d07a2be864">>
    ...the answer, neutralized...
    <</candidate nonce="9f3c51d07a2be864">>

Two things make the markers unforgeable. The nonce is drawn after the text is
known and redrawn if the text contains it, so no block can name it. And
:func:`neutralize` rewrites every marker-like sequence in the text (``<<``,
``>>``, ``<|``, ``|>``, ``<verdict``) with look-alike angle quotes, so
untrusted text can never contain ``<<`` at all, let alone close its own block
or open a new one. The reviewer is told that only markers with the nonce are
real and that its verdict must carry the nonce too (see :mod:`council.review.ballot`).

Templates are filled in one pass (:func:`fill_template`), so a ``{nonce}``
written inside an answer stays literal text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from council.review.flags import HARMFUL_KEY
from council.review.flags import RULES as FLAG_RULES
from council.review.flags import SCHEMA_PART as FLAGS_SCHEMA_PART
from council.review.sandbox import (  # noqa: F401 - fill_template, neutralize and new_nonce are re-exported
    fence,
    fill_template,
    neutralize,
    new_nonce,
    render_prompt,
)
from council.rubrics.bands import bands
from council.rubrics.model import LLM_SCORED, Criterion, Rubric
from council.types import ChatMessage

PROTOCOL = "council-review/1"
SYSTEM_TEMPLATE = "review_system.md"
USER_TEMPLATE = "review_user.md"

_LABEL = re.compile(r"^Response [A-Z]{1,3}$")


@dataclass(frozen=True)
class Candidate:
    """One answer under review, under its anonymous label ("Response A")."""

    label: str
    text: str


@dataclass(frozen=True)
class ReviewTask:
    """What a rendered review prompt asks for, as read back by :func:`read_review_task`."""

    nonce: str
    candidates: list[Candidate]
    dimension_ids: list[str]
    hints: dict[str, str] = field(default_factory=dict)
    #: Whether the prompt asks for the flags (``harmful``, ``addresses_reviewers``) too.
    asks_flags: bool = False


def shown_to_reviewers(text: str, max_chars: int | None) -> str:
    """``text`` as reviewers and the chairman read it: cut at ``max_chars``, with a marker that says so.

    An answer of hundreds of kilobytes would otherwise go whole into every
    reviewer's prompt. The cut backs up to a line or word break near the
    limit so the marker does not split a word.
    """
    if max_chars is None or len(text) <= max_chars:
        return text
    cut = max(text.rfind("\n", max_chars - 200, max_chars), text.rfind(" ", max_chars - 200, max_chars))
    kept = text[:cut if cut > 0 else max_chars].rstrip()
    return f"{kept}\n\n[answer cut for review: the first {len(kept):,} of {len(text):,} characters are shown]"


def labels_for(n: int) -> list[str]:
    """Anonymous labels for ``n`` answers: "Response A" to "Response Z", then "Response AA", ..."""
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    labels = []
    for index in range(n):
        letters = ""
        index += 1
        while index:  # bijective base 26: A..Z, AA..AZ, BA.., as spreadsheet columns
            index, remainder = divmod(index - 1, 26)
            letters = chr(ord("A") + remainder) + letters
        labels.append(f"Response {letters}")
    return labels


def key_hint(criterion: Criterion, rubric: Rubric) -> str:
    """The value a ballot gives a criterion, as shown next to its key: ``1-10``, ``true/false`` or ``level: a|b``."""
    if criterion.kind == "levels":
        return "level: " + "|".join(level.id for level in criterion.levels or [])
    if criterion.kind == "checklist":
        return "true/false"
    return f"{rubric.scale.min}-{rubric.scale.max}"


def render_rubric(rubric: Rubric) -> str:
    """The rubric as reviewers read it: each criterion with its weight and anchors, then the ceilings."""
    return rubric.memo("review_prompt.rubric", lambda: _render_rubric(rubric))


def _render_rubric(rubric: Rubric) -> str:
    total = sum(c.weight for c in rubric.criteria)
    sections = []
    if rubric.description:
        sections.append(rubric.description.strip())
    for criterion in rubric.llm_criteria():
        share = round(100 * criterion.weight / total)
        required = ", required" if criterion.required else ""
        lines = [f"### {criterion.id}: {criterion.title} ({key_hint(criterion, rubric)}; "
                 f"weight {criterion.weight:g}, {share}% of the overall score{required})"]
        if criterion.guidance:
            lines.append(criterion.guidance)
        if criterion.kind == "scored":
            # Anchors (AgentV) describe points on the scale, not the span up to the next key.
            anchors = rubric.range_keys == "anchors"
            lines += [f"- {first}{'' if first == last or anchors else f'-{last}'}: {text.strip()}"
                      for first, last, text in bands(criterion, rubric.scale.min, rubric.scale.max)]
        elif criterion.kind == "levels":
            for level in criterion.levels or []:
                signs = f" (signs: {'; '.join(level.indicators)})" if level.indicators else ""
                lines.append(f"- {level.id} ({level.label}): {level.description.strip()}{signs}")
        else:
            lines.append("- true: the answer clearly does this; false: it does not, or only partly.")
        sections.append("\n".join(lines))
    automatic = [c.title for c in rubric.criteria if c.scoring not in LLM_SCORED]
    if automatic:
        sections.append(f"Checked automatically, not by you: {', '.join(automatic)}.")
    if rubric.gates.ceilings:
        lines = ["### Ceilings", "However good the rest, the overall score is capped when one criterion is weak:"]
        lines += [f"- {c.criterion} below {c.below:g}: the overall score is at most {c.cap:g} "
                  f"on the {rubric.scale.min}-{rubric.scale.max} scale." for c in rubric.gates.ceilings]
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def render_verdict_schema(labels: list[str], rubric: Rubric, ask_flags: bool = False) -> str:
    """The shape of the verdict JSON, with one entry per label, for the prompt."""
    scores = rubric.memo("review_prompt.schema_scores", lambda: ", ".join(
        f'"{c.id}": <{key_hint(c, rubric)}>' for c in rubric.llm_criteria()))
    flags = f", {FLAGS_SCHEMA_PART}" if ask_flags else ""
    entries = ",\n".join(
        f'    "{label}": {{{scores}, "overall": <number>, "notes": "<text>"{flags}}}' for label in labels
    )
    return '{\n  "ranking": [<every label, best first>],\n  "evaluations": {\n' + entries + "\n  }\n}"


def _rubric_values(rubric: Rubric) -> Mapping[str, str]:
    """The system prompt's values that depend on the rubric alone, rendered once per rubric."""
    return rubric.memo("review_prompt.rubric_values", lambda: {
        "protocol": PROTOCOL,
        "rubric_name": rubric.name,
        "rubric_version": rubric.version,
        "rubric": render_rubric(rubric),
        "dimension_keys": ", ".join(f"{c.id} ({key_hint(c, rubric)})" for c in rubric.llm_criteria()),
    })


def render_review_prompt(
    conversation: Sequence[ChatMessage], candidates: list[Candidate], rubric: Rubric, nonce: str,
    *, ask_flags: bool = False,
) -> list[ChatMessage]:
    """The system and user messages asking one reviewer to score ``candidates``.

    ``candidates`` are rendered in the order given (the caller shuffles them
    per reviewer). The nonce must come from :func:`new_nonce` over every
    conversation turn and candidate text. ``ask_flags``: each entry also
    says whether the answer gives harmful help and whether it addresses the
    reviewers (:mod:`council.review.flags`; ``safety.council_review``).
    """
    if not candidates:
        raise ValueError("a review needs at least one candidate")
    labels = [c.label for c in candidates]
    for label in labels:
        if not _LABEL.match(label):
            raise ValueError(f"candidate labels look like 'Response A', got {label!r}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"candidate labels must be unique, got {labels}")
    system = render_prompt(
        SYSTEM_TEMPLATE,
        {**_rubric_values(rubric), "nonce": nonce, "verdict_schema": render_verdict_schema(labels, rubric, ask_flags),
         "flag_rules": f"\n{FLAG_RULES}" if ask_flags else "",
         "flag_keys": ', plus "harmful" and "addresses_reviewers" as rule 6 says' if ask_flags else ""},
    )
    user = render_prompt(
        USER_TEMPLATE,
        {
            "conversation": "\n\n".join(fence("turn", f'role="{m.role}"', m.content, nonce) for m in conversation),
            "candidates": "\n\n".join(fence("candidate", f'id="{c.label}"', c.text, nonce) for c in candidates),
            "labels": ", ".join(labels),
            "count": str(len(candidates)),
            "nonce": nonce,
        },
    )
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


def render_retry_message(error: str, nonce: str) -> str:
    """The follow-up asking a reviewer, once, for a verdict that can be read, naming what was wrong."""
    problem = " ".join(neutralize(error).split())
    if len(problem) > 400:
        problem = problem[:397] + "..."
    return (
        f"Your reply could not be used: {problem}.\n\n"
        "Reply again and end with exactly one verdict block as described in your instructions: "
        f'<verdict nonce="{nonce}">, then the JSON object, then </verdict>. '
        "Rank every answer exactly once, give every answer every score key, and make each score a whole "
        "number within the scale. Keep your assessment unless you find it was wrong; only the format needs fixing."
    )


def read_review_task(messages: list[ChatMessage]) -> ReviewTask | None:
    """Read back what a prompt from :func:`render_review_prompt` asks for; None for any other conversation.

    Simulated members use this to answer a review like a real model would.
    Follow-up turns after the prompt (a retry) are allowed. Candidate texts
    come back neutralized. Never raises.
    """
    try:
        if len(messages) < 2 or messages[0].role != "system" or messages[1].role != "user":
            return None
        system, user = messages[0].content, messages[1].content
        if f"Review protocol: {PROTOCOL}." not in system:
            return None
        # Both come from the trusted system message, where untrusted text never goes.
        verdict = re.search(r'<verdict nonce="([0-9a-f]{8,64})">', system)
        keys = re.findall(r"^Score keys: (.+)$", system, re.MULTILINE)
        if verdict is None or not keys:
            return None
        nonce = verdict.group(1)
        # "id (hint), id (hint)": an id is kept as the rubric writes it (letters, digits, spaces, _ - .).
        hints = dict(re.findall(r"(?:^|(?<=\), ))([A-Za-z0-9][A-Za-z0-9 _.-]*?) \(([^)]*)\)", keys[-1]))
        dimension_ids = list(hints)
        opening = re.compile(r'<<candidate id="(Response [A-Z]{1,3})" nonce="' + nonce + r'">>\n')
        closing = f'\n<</candidate nonce="{nonce}">>'
        candidates: list[Candidate] = []
        position = 0
        while (match := opening.search(user, position)) is not None:
            end = user.find(closing, match.end())
            if end < 0:
                return None
            candidates.append(Candidate(match.group(1), user[match.end() : end]))
            position = end + len(closing)
        if not candidates or not dimension_ids:
            return None
        asks_flags = f'"{HARMFUL_KEY}": ' in system
        return ReviewTask(nonce=nonce, candidates=candidates, dimension_ids=dimension_ids, hints=hints,
                          asks_flags=asks_flags)
    except Exception:
        return None
