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
