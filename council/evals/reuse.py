"""What an evaluation run needs to reuse calls: scopes, fixed shuffle seeds, and checking kept replies' writes.

``council eval`` plans every council run with call reuse on (unless
``--fresh``): an answer, review, chairman or evaluator call asked exactly
as an earlier run asked it gets that run's reply from the run database
instead of going upstream (:mod:`council.pipeline.call_reuse`). For a
review to be asked "exactly as before", each reviewer must see the answers
in the same order: a sample's shuffle seed is therefore fixed
(:func:`sample_seed`). Repeats are kept apart (:func:`reuse_scope`): they
exist to measure how answers vary, which one reply standing in for all
would hide.
"""

from __future__ import annotations

import asyncio
import hashlib

from council.logs import get_logger
from council.pipeline.call_reuse import CallReuse
from council.storage.store import Store

_log = get_logger("eval.reuse")


def reuse_scope(repeat: int) -> str:
    """The call-reuse scope of one repeat: repeats measure variance, so one never stands in for another."""
    return f"eval repeat {repeat}"


def runner_reuse(store: Store | None, reuse_calls: bool, repeat: int) -> CallReuse | None:
    """The kept replies the runner's own calls (judge-mode answers, the evaluator) may use in ``repeat``, if any."""
    return CallReuse(store, reuse_scope(repeat)) if reuse_calls and store is not None else None


def sample_seed(configured: int | None, sample_id: str, repeat: int) -> int:
    """The review shuffle seed of one sample's council run: ``review.seed`` when set, else one fixed per sample.

    Fixed, so a re-run shows each reviewer the answers in the same order and its kept ballots can stand in.
    """
    if configured is not None:
        return configured
    return int.from_bytes(hashlib.sha256(f"{sample_id}/{repeat}".encode()).digest()[:4], "big") & 0x7FFFFFFF


async def settle_kept(writes: list[asyncio.Future[None]]) -> None:
    """Wait for the writes of kept replies; one that failed costs a later re-run a call, nothing else."""
    for outcome in await asyncio.gather(*writes, return_exceptions=True):
        if isinstance(outcome, BaseException):
            _log.warning("call_not_kept", error=str(outcome))
