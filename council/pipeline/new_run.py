"""A new run's result before its first stage: its id, its question, and what makes it reproducible.

A run's record keeps the hashes of what decided it: the config, the prompt
templates it may use, the rubric, the shuffle seed, the aggregation and
Council's version. :func:`prompts_of` says which templates a run may use
(the revision prompts only when it may have a second round, so that other
runs' records are unchanged); the eval manifest and the cache key use it too.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from council._version import __version__
from council.assets import prompt_hash
from council.config import CouncilConfig
from council.pipeline.plan import RunPlan
from council.result import CouncilResult, Reproducibility
from council.review.revision import PROMPTS as REVISION_PROMPTS

PROMPTS = ("review_system.md", "review_user.md", "chairman_system.md", "chairman_user.md", "safety_system.md",
           "feedback_system.md")


def prompts_of(rounds: int) -> tuple[str, ...]:
    """The prompt templates a run of ``rounds`` rounds may use, whose hashes its record keeps."""
    return PROMPTS + REVISION_PROMPTS if rounds > 1 else PROMPTS


def new_result(config: CouncilConfig, config_hash: str, plan: RunPlan, seed: int, run_id: str | None) -> CouncilResult:
    """The result a run of ``plan`` starts from: nothing done yet, everything that will decide it on record."""
    rubric = plan.rubric
    reproducibility = Reproducibility(
        config_hash=config_hash,
        prompt_hashes={name: prompt_hash(name) for name in prompts_of(plan.rounds)},
        rubric_id=rubric.id,
        rubric_version=rubric.version,
        rubric_hash=rubric.content_hash(),
        shuffle_seed=seed,
        aggregation_method=config.review.aggregation,
        package_version=__version__,
    )
    simulated = any(config.member(m).provider == "simulated" for m in plan.members)
    result = CouncilResult(run_id=run_id or uuid.uuid4().hex, created_at=datetime.now(UTC),
                           question=list(plan.messages), simulated=simulated, reproducibility=reproducibility)
    result.preset, result.judging = plan.preset, plan.judging
    if plan.output is not None:
        result.output_schema = plan.output.fingerprint()
    return result
