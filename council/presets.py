"""Council presets (``councils:`` in the config): named variants of the council, chosen per run.

A preset picks who answers, who chairs (or nobody), which rubric, and how
answers are reviewed: by their peers (every member reviews the others, as
the plain council does) or by one judge who scores every answer, which
costs one review call instead of one per member. A judge never scores its
own answer: when it answers too, a second judge scores every answer but its
own, the judge's included (:meth:`CouncilPreset.second_judge_for`). ``quick``
in the shipped configs is an example. A preset is a model on the server
(``council/NAME``), ``--preset NAME`` on the CLI and ``preset=`` in Python.
Knows nothing of how a council runs: the orchestrator applies it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

PRESET_NAME = r"^[a-z0-9][a-z0-9_-]{0,39}$"
NO_CHAIRMAN = "none"


class CouncilPreset(BaseModel):
    """One named variant of the council; what it leaves out comes from the rest of the config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = Field(default="", max_length=300, description="One line for /v1/models and the page.")
    members: list[str] | None = Field(default=None, min_length=1, description="Who answers (default: every member).")
    chairman: str | None = Field(default=None, description="A member, or 'none' for the top answer as is "
                                                           "(default: the config's chairman).")
    rubric: str | None = Field(default=None, description="A rubric name or path (default: the config's rubric).")
    review: Literal["peers", "judge"] = Field(default="peers", description="peers: every member reviews the "
                                              "others; judge: one member scores every answer.")
    judge: str | None = Field(default=None, description="The member who scores every answer (review: judge), "
                                                       "its own excepted.")
    straggler_factor: float | None = Field(
        default=None, ge=1.0, le=100.0, exclude_if=lambda factor: factor is None,
        description="The straggler policy for runs of this preset (default: stages.straggler_factor).")
    second_judge: str | None = Field(default=None, description="When the judge answers too: the member who scores "
                                     "every answer but its own, the judge's included (default: the first other "
                                     "answering member).")
    rounds: Literal[1, 2] | None = Field(
        default=None, exclude_if=lambda rounds: rounds is None,
        description="2: a second round when the first ranking is unsure (default: review.rounds).")
    tools: Literal["text", "decide"] | None = Field(
        default=None, exclude_if=lambda tools: tools is None,
        description="decide: the council may answer with a tool call when the client leaves the choice to it "
                    "(default: server.council_tools).")
    deliberate_below: float | None = Field(
        default=None, gt=0.0, le=1.0, exclude_if=lambda threshold: threshold is None,
        description="The confidence below which a second round runs (default: review.deliberate_below).")

    @model_validator(mode="after")
    def _judge_goes_with_review(self) -> CouncilPreset:
        if self.review == "judge" and self.judge is None:
            raise ValueError("review: judge needs judge: MEMBER (the member who scores every answer)")
        if self.review == "peers" and (self.judge is not None or self.second_judge is not None):
            raise ValueError(f"{'judge' if self.judge is not None else 'second_judge'} is only used with review: judge")
        if self.second_judge is not None and self.second_judge == self.judge:
            raise ValueError("second_judge must be another member than judge (it scores the judge's own answer)")
        return self

    def second_judge_for(self, answering: list[str], member_names: list[str]) -> str | None:
        """Who scores the judge's answer when ``answering`` includes the judge (None when it does not answer).

        The configured ``second_judge``, else the first other answering
        member, else the first other member of the council.
        """
        if self.judge is None or self.judge not in answering:
            return None
        if self.second_judge is not None:
            return self.second_judge
        others = [m for m in [*answering, *member_names] if m != self.judge]
        return others[0] if others else None

    def chairman_for(self, configured: str | None) -> str | None:
        """The chairman a run of this preset has, given the config's."""
        if self.chairman is None:
            return configured
        return None if self.chairman.lower() == NO_CHAIRMAN else self.chairman

    def problems(self, member_names: list[str], quorum: int) -> list[str]:
        """What in this preset does not fit the council's members (empty when it fits)."""
        found = []
        unknown = [m for m in (self.members or []) if m not in member_names]
        if unknown:
            found.append(f"unknown members {', '.join(unknown)}")
        if self.chairman is not None and self.chairman.lower() != NO_CHAIRMAN and self.chairman not in member_names:
            found.append(f"chairman {self.chairman!r} is not a member")
        if self.judge is not None and self.judge not in member_names:
            found.append(f"judge {self.judge!r} is not a member")
        if self.second_judge is not None and self.second_judge not in member_names:
            found.append(f"second_judge {self.second_judge!r} is not a member")
        elif self.second_judge is not None and self.members and self.judge not in self.members:
            found.append(f"second_judge is only used when the judge answers too ({self.judge} is not in members)")
        answering = len(self.members) if self.members else len(member_names)
        if quorum > answering:
            found.append(f"{answering} members answer but stages.quorum is {quorum}")
        return found
