"""``council eval --score-candidates``: the evaluator's verdict on every member's answer, not only the final one.

In council mode the evaluator normally scores the chairman's final answer
alone; nothing says which of the members' answers was closest to the
reference. With ``--score-candidates``, each sample that has a
``reference_answer`` also gets a verdict for every member answer that
reached the review (``SampleRecord.candidate_evaluations``, by member),
with the same evaluator, template, parameters and call reuse. Those
verdicts are what ``council calibrate`` measures the reviewers' ballots
against (:mod:`council.evals.reviewer_accuracy`). They cost one evaluator
call per member answer per sample (counted in the run's evaluator cost).
"""

from __future__ import annotations

import asyncio

from council.config import Price
from council.evals.dataset import Sample
from council.evals.evaluator import Evaluation, evaluate_sample
from council.evals.records import SampleRecord
from council.evals.reuse import settle_kept
from council.pipeline.call_reuse import CallReuse
from council.pipeline.cost import usd_of
from council.providers import Provider
from council.result import CouncilResult
from council.types import GenerationParams


async def score_candidates(provider: Provider, sample: Sample, result: CouncilResult | None,
                           params: GenerationParams | None, template: str, reuse: CallReuse | None,
                           price: Price | None) -> dict[str, Evaluation]:
    """The evaluator's verdict on each member answer of ``result`` that was reviewed, by member.

    Nothing for a sample without a reference answer (there is no right
    answer to be close to) or a run that produced no answers. Replies kept
    for call reuse are written before it returns.
    """
    if result is None or sample.reference_answer is None:
        return {}
    answers = [(a.member, a.content) for a in result.answers if a.status == "ok" and a.content and a.content.strip()]
    kept: list[asyncio.Future[None]] = []
    verdicts = await asyncio.gather(*(evaluate_sample(provider, sample, text, params, template, reuse, kept.append)
                                      for _, text in answers))
    await settle_kept(kept)
    for verdict in verdicts:
        verdict.cost_usd = usd_of(verdict.usage, price)
    return {member: verdict for (member, _), verdict in zip(answers, verdicts, strict=True)}


def with_candidates(record: SampleRecord, scored: dict[str, Evaluation]) -> SampleRecord:
    """``record`` with the members' verdicts, their reused calls counted as the final answer's are."""
    reused = sum(e.reused for e in scored.values())
    # A verdict all of whose attempts came from kept replies was paid for by the run that made them.
    reused_usd = sum(e.cost_usd or 0.0 for e in scored.values() if e.attempts and e.reused == e.attempts)
    calls = {**record.reused_calls, "evaluation": record.reused_calls.get("evaluation", 0) + reused} if reused \
        else record.reused_calls
    return record.model_copy(update={"candidate_evaluations": scored, "reused_calls": calls,
                                     "reused_usd": record.reused_usd + reused_usd})
