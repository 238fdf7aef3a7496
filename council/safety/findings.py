"""What the safety gate reports: a verdict on one answer and the findings behind it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from council.types import Usage

# The categories a pattern finding can carry (an LLM classifier may report others).
CATEGORIES = ("dangerous_instructions", "weapon_making", "malware_hacking", "self_harm", "pii_exposure")


class SafetyFinding(BaseModel):
    """One reason an answer failed the gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str
    rule: str
    evidence: str


class SafetyVerdict(BaseModel):
    """The gate's decision on one answer: failing findings, or notes on what was let through."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    findings: list[SafetyFinding] = []
    notes: list[str] = []
    checker: str = "patterns"
    usage: Usage | None = None  # the LLM classifier's call, when one was made

