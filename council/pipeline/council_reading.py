"""The council as its own moderator: what the reviewers flagged decides, after review, before the ranking.

The safety layers, in order: the patterns (always, free, before review),
the moderation provider or member (when configured, before review), and
this, the council's own reading (``safety.council_review``, on by default):
every reviewer already reads every answer, and its ballot also says
whether the answer gives harmful help and whether it addresses the
reviewers or the other members (:mod:`council.review.flags`).

- An answer a *strict majority* of the reviewers that read it call harmful
  (its author never counts: a reviewer that reads its own answer under
  ``review.include_self`` can neither block nor save it) is blocked: out of
  the ranking, never given to the chairman or to revisers, its text masked
  in every output, the reviewers' categories its evidence, ``checker:
  "council"``.
- An answer *any* reviewer says addresses them is flagged as the pattern
  flag does (``evaluator_manipulation``): still ranked, the run degraded,
  the chairman warned.

It costs no call. Knows reviews and answers; nothing of providers or HTTP.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from council.events import SafetyEvent
from council.pipeline.context import RunContext
from council.pipeline.payloads import safety_event_data
from council.pipeline.progress import RunSoFar
from council.records import AnswerRecord, ReviewRecord, SafetyGateSummary
from council.review.flags import HARM_CATEGORIES
from council.safety.gate import SafetyFinding, SafetyVerdict

CHECKER = "council"
RULE = "council.review"
MANIPULATION = "evaluator_manipulation"


@dataclass(frozen=True)
class Reading:
    """How the reviewers that read one answer flagged it."""

    member: str
    #: The reviewers whose ballot scored this answer (its author left out), in review order.
    readers: tuple[str, ...]
    #: Each reviewer that called it harmful, with the category it named.
    harmful: dict[str, str]
    #: The reviewers that said it addresses the reviewers or the other members.
    addressed: tuple[str, ...]

    @property
    def blocked(self) -> bool:
        """A strict majority of its readers called it harmful."""
        return bool(self.readers) and 2 * len(self.harmful) > len(self.readers)

    def category(self) -> str:
        """The category most of its harmful flags named (the gate's order breaks a tie; unnamed last)."""
        counts = Counter(self.harmful.values())
        order = {name: index for index, name in enumerate(HARM_CATEGORIES)}
        return min(counts, key=lambda name: (-counts[name], order.get(name, len(order)), name))

    def verdict(self) -> SafetyVerdict:
        """The blocking verdict: the category, and who said what, as evidence."""
        said = ", ".join(f"{reviewer} ({category})" for reviewer, category in self.harmful.items())
        evidence = f"{len(self.harmful)} of {len(self.readers)} reviewers called it harmful: {said}"
        return SafetyVerdict(passed=False, checker=CHECKER,
                             findings=[SafetyFinding(category=self.category(), rule=RULE, evidence=evidence)])


def readings(answers: list[AnswerRecord], reviews: list[ReviewRecord]) -> dict[str, Reading]:
    """Each surviving answer's reading by the reviews that scored it."""
    read: dict[str, Reading] = {}
    for answer in answers:
        if answer.status != "ok":
            continue
        readers, harmful, addressed = [], {}, []
        for review in reviews:
            entry = review.scores.get(answer.member) if review.status == "ok" else None
            if entry is None or review.reviewer == answer.member:
                continue
            readers.append(review.reviewer)
            if entry.harmful is not None:
                harmful[review.reviewer] = entry.harmful
            if entry.addresses_reviewers:
                addressed.append(review.reviewer)
        read[answer.member] = Reading(answer.member, tuple(readers), harmful, tuple(addressed))
    return read


def apply_reading(answers: list[AnswerRecord], read: dict[str, Reading]) -> list[AnswerRecord]:
    """The answers with the council's reading applied: blocked by a majority, flagged by any reviewer."""
    applied = []
    for answer in answers:
        reading = read.get(answer.member)
        if reading is None:
            applied.append(answer)
        elif reading.blocked:
            verdict = reading.verdict()
            if answer.safety is not None:  # what the earlier layers noted stays on the record
                verdict = verdict.model_copy(update={"notes": list(answer.safety.notes)})
            applied.append(answer.model_copy(update={"status": "blocked", "safety": verdict}))
        elif reading.addressed and not any(f.rule == RULE for f in answer.flags):
            said = ", ".join(reading.addressed)
            finding = SafetyFinding(category=MANIPULATION, rule=RULE,
                                    evidence=f"{len(reading.addressed)} of {len(reading.readers)} reviewers said it "
                                             f"addresses them: {said}")
            applied.append(answer.model_copy(update={"flags": [*answer.flags, finding]}))
        else:
            applied.append(answer)
    return applied


def reading_problems(before: list[AnswerRecord], after: list[AnswerRecord]) -> tuple[str, ...]:
    """Why the run is degraded by the reading: the answers it newly flagged as addressing the reviewers."""
    was = {a.member: len(a.flags) for a in before}
    named = [f"{a.member} ({', '.join(f.evidence.rsplit(': ', 1)[-1] for f in a.flags if f.rule == RULE)})"
             for a in after if a.status == "ok" and len(a.flags) > was.get(a.member, 0)]
    if not named:
        return ()
    return (f"answers the reviewers said address them (evaluator_manipulation, by the council's reading): "
            f"{', '.join(named)}; they were ranked, and the chairman was told",)


def read_answers(ctx: RunContext, answers: list[AnswerRecord],
                 reviews: list[ReviewRecord]) -> tuple[list[AnswerRecord], tuple[str, ...]]:
    """The answers after the council's reading of ``reviews``, and why the run is degraded by it."""
    read = readings(answers, reviews)
    after = apply_reading(answers, read)
    if ctx.listening:
        # A verdict for each answer the reading blocked; the ranking, next, releases what the page holds.
        for answer in after:
            if answer.member in read and read[answer.member].blocked and answer.safety is not None:
                ctx.emit(SafetyEvent(ctx.run_id, safety_event_data(answer.member, answer.safety)))
    return after, reading_problems(answers, after)


def reads(ctx: RunContext, _so_far: RunSoFar | None = None) -> bool:
    """Whether the run's reviewers were asked for the flags (``safety.council_review``, the gate on)."""
    return ctx.config.safety.enabled and ctx.config.safety.council_review


async def council_reading_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The council's reading in the run: between the reviews and the ranking."""
    answers, degraded = read_answers(ctx, list(so_far.answers), list(so_far.reviews))
    if answers == list(so_far.answers):
        return so_far.then(degraded=degraded)
    return so_far.then(answers=tuple(answers), safety_gate=SafetyGateSummary.of(answers), degraded=degraded)
