"""What a moderation check found, in Council's categories, and how it changes the gate's verdict.

Each provider has its own taxonomy; here both are mapped onto the five
categories of ADR-016 (:data:`council.safety.gate.CATEGORIES`) plus three that
only a moderation layer reports, because no pattern rule covers them:

* ``hate_harassment``: hate speech and harassment;
* ``sexual_content``: sexual content, sexual crimes, and any involving minors;
* ``moderation_other``: what fits nowhere else (violence depicted rather
  than instructed, defamation, specialised advice, intellectual property,
  elections, and any label this release does not know).

The provider's own label is kept in the finding's rule
(``moderation.openai.self-harm/instructions``, ``moderation.llama_guard.S11``)
so nothing is lost in the mapping. A finding's evidence is the label and its
score, never the answer's text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from council.safety.gate import SafetyFinding, SafetyVerdict
from council.types import Usage

MODERATION_CATEGORIES = ("hate_harassment", "sexual_content", "moderation_other")
"""The categories only the moderation layer reports (the patterns' five are in ``gate.CATEGORIES``)."""

OPENAI_CATEGORIES: dict[str, str] = {
    "harassment": "hate_harassment",
    "harassment/threatening": "hate_harassment",
    "hate": "hate_harassment",
    "hate/threatening": "hate_harassment",
    # OpenAI has no class of its own for malware: instructions for intrusion are "illicit".
    "illicit": "dangerous_instructions",
    "illicit/violent": "weapon_making",
    "self-harm": "self_harm",
    "self-harm/intent": "self_harm",
    "self-harm/instructions": "self_harm",
    "sexual": "sexual_content",
    "sexual/minors": "sexual_content",
    "violence": "moderation_other",
    "violence/graphic": "moderation_other",
}
"""OpenAI's moderation categories (``omni-moderation-latest``) in Council's words."""

LLAMA_GUARD_CATEGORIES: dict[str, tuple[str, str]] = {
    "S1": ("dangerous_instructions", "violent crimes"),
    "S2": ("dangerous_instructions", "non-violent crimes"),
    "S3": ("sexual_content", "sex-related crimes"),
    "S4": ("sexual_content", "child sexual exploitation"),
    "S5": ("moderation_other", "defamation"),
    "S6": ("moderation_other", "specialized advice"),
    "S7": ("pii_exposure", "privacy"),
    "S8": ("moderation_other", "intellectual property"),
    "S9": ("weapon_making", "indiscriminate weapons"),
    "S10": ("hate_harassment", "hate"),
    "S11": ("self_harm", "suicide and self-harm"),
    "S12": ("sexual_content", "sexual content"),
    "S13": ("moderation_other", "elections"),
    "S14": ("malware_hacking", "code interpreter abuse"),
}
"""Llama Guard 3's hazard codes (the MLCommons taxonomy and S14) in Council's words, with the hazard's name."""


def council_category(provider: str, label: str) -> str:
    """The Council category of one provider label; ``moderation_other`` for a label this release does not know."""
    if provider == "openai":
        return OPENAI_CATEGORIES.get(label, "moderation_other")
    return LLAMA_GUARD_CATEGORIES.get(label.upper(), ("moderation_other", ""))[0]


@dataclass(frozen=True)
class Judgement:
    """A moderation API's answer about one text, as its wire format read it."""

    flagged: bool
    #: The provider's own labels that were flagged, in its order ("self-harm/instructions", "S11").
    labels: list[str] = field(default_factory=list)
    #: The provider's scores (OpenAI reports them for every category; Llama Guard reports none).
    scores: dict[str, float] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    model_version: str | None = None


class ModerationCheck(BaseModel):
    """The moderation layer's record on one answer: what it said, how long it took, what it used, or why it failed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    checker: str = Field(description="moderation:openai, moderation:llama_guard, or llm:MEMBER.")
    model: str = Field(description="The model asked.")
    status: Literal["ok", "failed"] = Field(description="failed: no verdict (the pattern verdict stands).")
    flagged: bool | None = Field(default=None, description="Whether it flagged the answer; None when it failed.")
    categories: list[str] = Field(default_factory=list, description="Council categories of what it flagged.")
    labels: list[str] = Field(default_factory=list, description="The provider's own labels it flagged.")
    top_scores: dict[str, float] = Field(default_factory=dict, description="Its three highest scores (OpenAI).")
    latency_ms: float = Field(default=0.0, description="Time of the check, retries included.")
    attempts: int = Field(default=1, description="Upstream attempts made.")
    usage: Usage | None = Field(default=None, description="Tokens (estimated where the API reports none).")
    usd: float | None = Field(default=None, description="What the check cost, when a price is known.")
    error: str | None = Field(default=None, description="Why it failed: reason and message, secrets scrubbed.")


def _evidence(provider: str, label: str, scores: dict[str, float]) -> str:
    if provider == "llama_guard":
        name = LLAMA_GUARD_CATEGORIES.get(label.upper(), ("", "unknown hazard"))[1] or "unknown hazard"
        return f"Llama Guard: {label} ({name})"
    score = scores.get(label)
    return f"OpenAI moderation: {label}" + (f" (score {score:.2f})" if score is not None else "")


def check_record(provider: str, model: str, judgement: Judgement, latency_ms: float, attempts: int,
                 usd: float | None) -> ModerationCheck:
    """The record of a check that answered."""
    top = dict(sorted(judgement.scores.items(), key=lambda item: -item[1])[:3])
    categories = sorted({council_category(provider, label) for label in judgement.labels})
    if judgement.flagged and not categories:
        categories = ["moderation_other"]  # flagged without saying why
    return ModerationCheck(checker=f"moderation:{provider}", model=judgement.model_version or model, status="ok",
                           flagged=judgement.flagged, categories=categories, labels=list(judgement.labels),
                           top_scores={k: round(v, 4) for k, v in top.items()}, latency_ms=latency_ms,
                           attempts=attempts, usage=judgement.usage, usd=usd)


def judged(verdict: SafetyVerdict, provider: str, judgement: Judgement) -> SafetyVerdict:
    """The pattern verdict (which passed) with the moderation layer's word added: it fails if the layer flagged."""
    checker = f"{verdict.checker}+moderation:{provider}"
    if not judgement.flagged:
        return verdict.model_copy(update={"checker": checker, "usage": judgement.usage})
    labels = judgement.labels or ["unsafe"]
    findings = [SafetyFinding(category=council_category(provider, label), rule=f"moderation.{provider}.{label}",
                              evidence=_evidence(provider, label, judgement.scores)) for label in labels]
    return verdict.model_copy(update={"passed": False, "findings": [*verdict.findings, *findings],
                                      "checker": checker, "usage": judgement.usage})


__all__ = ["LLAMA_GUARD_CATEGORIES", "MODERATION_CATEGORIES", "OPENAI_CATEGORIES", "Judgement", "ModerationCheck",
           "check_record", "council_category", "judged"]
