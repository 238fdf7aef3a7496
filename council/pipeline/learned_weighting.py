"""``review.weighting: learned``: each reviewer's weight read from the store, or the default and why.

The weights are those ``council calibrate`` stored under each reviewer's
key (``member|provider|model``). They rank the run only when every
reviewer of the sheet has one: a reviewer without (never calibrated, or a
member whose model changed since, whose key is new) makes the whole run
fall back to the default weighting, since weights measured for some
reviewers and not others are on no common scale. The run's agreement
record says which weights ranked it, or why the learned ones did not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from council.errors import StorageError, storage_cause
from council.pipeline.context import RunContext
from council.pipeline.persist import waited_for_storage
from council.ranking.weights import DEFAULT_WEIGHTING, LEARNED
from council.records import LearnedWeightRecord
from council.storage.backlog import StorageUnavailableError
from council.storage.learned_weights import StoredWeight


@dataclass(frozen=True)
class WeightingChoice:
    """The weighting a run ranks with, the learned weights by reviewer (when learned), and why not when not."""

    weighting: str
    weights: dict[str, float] = field(default_factory=dict)
    records: dict[str, LearnedWeightRecord] = field(default_factory=dict)
    note: str | None = None


def _fallback(why: str) -> WeightingChoice:
    return WeightingChoice(DEFAULT_WEIGHTING, note=f"learned weights not used ({why}): ranked with the default "
                                                   f"{DEFAULT_WEIGHTING} weighting")


async def choose_weighting(ctx: RunContext, reviewers: Sequence[str], keys: Mapping[str, str]) -> WeightingChoice:
    """The configured weighting; for ``learned``, the stored weights of the ``reviewers`` (their store keys in
    ``keys``) or the default."""
    configured = ctx.config.review.weighting
    if configured != LEARNED:
        return WeightingChoice(configured)
    if ctx.store is None:
        return _fallback("the council has no store to read them from")
    unknown = sorted(name for name in reviewers if name not in keys)
    if unknown:
        return _fallback(f"no store key for {', '.join(unknown)}")
    if not keys:
        return _fallback("no reviewer to weigh")
    try:
        stored = await waited_for_storage(ctx, ctx.store.read_learned_weights(sorted(set(keys.values()))))
    except (TimeoutError, StorageUnavailableError):
        return _fallback("the database did not answer")
    except StorageError as error:
        return _fallback(f"they could not be read: {storage_cause(error)}")
    missing = sorted(name for name, key in keys.items() if key not in stored)
    if missing:
        which = ", ".join(f"{name} ({keys[name].split('|', 1)[1].replace('|', ' ')})" for name in missing)
        return _fallback(f"none for {which}: never calibrated, or its model changed since council calibrate")
    keys = {name: keys[name] for name in reviewers}
    records = {name: _record(key, stored[key]) for name, key in sorted(keys.items())}
    return WeightingChoice(LEARNED, {name: stored[key].weight for name, key in keys.items()}, records)


def _record(key: str, stored: StoredWeight) -> LearnedWeightRecord:
    accuracy = stored.tally.accuracy
    return LearnedWeightRecord(weight=round(stored.weight, 4), samples=stored.tally.samples,
                               accuracy=None if accuracy is None else round(accuracy, 4),
                               eval_runs=list(stored.eval_runs), reviewer_key=key)
