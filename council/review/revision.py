"""The deliberation round's revision prompt: a member reads the critiques and revises its answer or keeps it.

Everything a member reads here was written by others: the conversation,
the other answers, and the reviewers' critiques (which may quote answers).
So every piece goes into a nonce-fenced block, exactly as in a review
(:mod:`council.review.sandbox`): answers as ``answer`` blocks, each critique,
its scores and notes together, as a ``critique`` block. Reviewers appear as
"Reviewer 1", "Reviewer 2", in an order that says nothing of who they are;
the answers carry fresh labels.

The reply opens with a decision block carrying the nonce::

    <revision nonce="9f3c51d07a2be864">{"decision": "revise", "reason": "..."}</revision>
    ...the revised answer...

:func:`parse_revision_reply` reads it; a reply without a readable block is
data (a failed revision with its reason), and the first answer stands.
:func:`read_revision_task` reads a rendered prompt back, for simulated and
scripted members.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from council import strict_json
from council.review.sandbox import fence, render_prompt
from council.types import ChatMessage

PROTOCOL = "council-revision/1"
SYSTEM_TEMPLATE = "revision_system.md"
USER_TEMPLATE = "revision_user.md"
PROMPTS = (SYSTEM_TEMPLATE, USER_TEMPLATE)
_DECISION = re.compile(r'<revision nonce="([0-9a-f]{8,64})">(.*?)</revision>', re.S | re.I)
_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
_DECISIONS = {"revise": "revise", "revised": "revise", "keep": "keep", "kept": "keep"}
_ANSWER_BLOCK = re.compile(r'<<answer id="(Response [A-Z]{1,3})" nonce="([0-9a-f]+)">>\n(.*?)\n<</answer nonce="\2">>',
                           re.S)
_CRITIQUE_BLOCK = re.compile(r'<<critique of="(Response [A-Z]{1,3})" by="(Reviewer \d+)" nonce="([0-9a-f]+)">>\n'
                             r'(.*?)\n<</critique nonce="\3">>', re.S)
_TURN_BLOCK = re.compile(r'<<turn role="(\w+)" nonce="([0-9a-f]+)">>\n(.*?)\n<</turn nonce="\2">>', re.S)


@dataclass(frozen=True)
class Critique:
    """One reviewer's critique of one answer, as the member reads it: its scores and notes."""

    reviewer: str
    scores: dict[str, object]
    overall: float | None
    notes: str

    def as_text(self) -> str:
        """The critique's body: a JSON line of scores, then the notes."""
        figures = {**self.scores, **({"overall": round(self.overall, 2)} if self.overall is not None else {})}
        return f"scores: {json.dumps(figures, ensure_ascii=False)}\nnotes: {self.notes or '(none)'}"


@dataclass(frozen=True)
class RevisionTask:
    """What a rendered revision prompt asks, as read back: the answers and critiques, and which answer is yours."""

    nonce: str
    own_label: str
    question: list[ChatMessage]
    answers: dict[str, str]
    critiques: dict[str, list[Critique]] = field(default_factory=dict)


@dataclass(frozen=True)
class RevisionReply:
    """A member's decision, read from its reply: ``error`` says why it could not be read."""

    decision: Literal["revise", "keep"] | None
    reason: str = ""
    answer: str = ""
    error: str | None = None


def render_revision_prompt(question: Sequence[ChatMessage], answers: dict[str, str], own_label: str,
                           critiques: dict[str, list[Critique]], nonce: str) -> list[ChatMessage]:
    """The system and user messages asking one member to revise ``answers[own_label]`` or keep it.

    ``answers`` maps labels to texts in the order shown; ``critiques`` each
    label's critiques. The nonce must come from :func:`~council.review.sandbox.new_nonce`
    over every turn, answer and critique text.
    """
    if own_label not in answers:
        raise ValueError(f"{own_label!r} is not one of the answers shown")
    conversation = "\n\n".join(fence("turn", f'role="{m.role}"', m.content, nonce) for m in question)
    shown = "\n\n".join(fence("answer", f'id="{label}"', text, nonce) for label, text in answers.items())
    blocks = [fence("critique", f'of="{label}" by="{c.reviewer}"', c.as_text(), nonce)
              for label in answers for c in critiques.get(label, [])]
    user = render_prompt(USER_TEMPLATE, {
        "conversation": conversation, "answers": shown, "labels": ", ".join(answers), "own_label": own_label,
        "critiques": "\n\n".join(blocks) or "(no reviewer wrote a critique)", "nonce": nonce})
    return [ChatMessage(role="system", content=render_prompt(SYSTEM_TEMPLATE, {"nonce": nonce})),
            ChatMessage(role="user", content=user)]


def parse_revision_reply(text: str, nonce: str) -> RevisionReply:
    """The decision in a member's reply; a reply that cannot be read says why in ``error``.

    Read as models write it, not only as asked: the decision's JSON may sit
    in a code fence, ``"revised"`` and ``"kept"`` count as ``revise`` and
    ``keep``, and a revised answer written before the block (the block
    last) is the answer when nothing follows the block. The block must
    carry this round's nonce: one quoted from another answer never does.
    """
    blocks = [m for m in _DECISION.finditer(text) if m.group(1) == nonce]
    if not blocks:
        return RevisionReply(None, error=f'no <revision nonce="{nonce}"> decision block in the reply')
    block = blocks[0]
    body = _FENCED.sub(r"\1", block.group(2).strip())
    try:
        data = strict_json.loads(body)
    except ValueError as exc:
        return RevisionReply(None, error=f"the decision block is not JSON ({str(exc).split(':')[0]})")
    raw = data.get("decision") if isinstance(data, dict) else None
    decision = _DECISIONS.get(raw.strip().lower()) if isinstance(raw, str) else None
    if decision is None:
        return RevisionReply(None, error=f'"decision" must be "revise" or "keep", got {raw!r}')
    reason = str(data.get("reason") or "").strip()[:500]
    if decision == "keep":
        return RevisionReply("keep", reason)
    answer = text[block.end():].strip() or text[:block.start()].strip()
    if not answer:
        return RevisionReply(None, reason, error='"revise" with no revised answer beside the decision block')
    return RevisionReply("revise", reason, answer)


def read_revision_task(messages: list[ChatMessage]) -> RevisionTask | None:
    """Read back what a prompt from :func:`render_revision_prompt` asks; None for any other conversation."""
    try:
        if len(messages) < 2 or messages[0].role != "system" or messages[1].role != "user":
            return None
        if f"Revision protocol: {PROTOCOL}." not in messages[0].content:
            return None
        found = re.search(r'<revision nonce="([0-9a-f]{8,64})">', messages[0].content)
        own = re.search(r"^Your own answer is (Response [A-Z]{1,3})\.$", messages[1].content, re.M)
        if found is None or own is None:
            return None
        nonce, user = found.group(1), messages[1].content
        answers = {label: body for label, block_nonce, body in _ANSWER_BLOCK.findall(user) if block_nonce == nonce}
        critiques: dict[str, list[Critique]] = {}
        for label, reviewer, block_nonce, body in _CRITIQUE_BLOCK.findall(user):
            if block_nonce == nonce:
                critiques.setdefault(label, []).append(_read_critique(reviewer, body))
        question = [ChatMessage(role=role if role in ("system", "user", "assistant") else "user", content=body)
                    for role, block_nonce, body in _TURN_BLOCK.findall(user) if block_nonce == nonce]
        if own.group(1) not in answers:
            return None
        return RevisionTask(nonce, own.group(1), question, answers, critiques)
    except Exception:
        return None


def _read_critique(reviewer: str, body: str) -> Critique:
    head, _, notes = body.partition("\nnotes: ")
    try:
        figures = json.loads(head.removeprefix("scores: "))
    except ValueError:
        figures = {}
    overall = figures.pop("overall", None) if isinstance(figures, dict) else None
    return Critique(reviewer, figures if isinstance(figures, dict) else {},
                    float(overall) if isinstance(overall, int | float) else None, notes)
