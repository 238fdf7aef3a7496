"""Call reuse: an evaluation re-run asks no upstream call it has already asked.

``council eval`` plans its runs with ``reuse_calls`` on. Each answer,
review, chairman and evaluator call then first looks for a reply kept under
its key, a hash of what decides that reply (:meth:`CallReuse.key`): the
kind of call, the member's whole configuration (provider, model, endpoint,
its own generation settings) but its price, the generation parameters sent,
the messages sent, and facts the caller names (a review adds the rubric's
id, version and content hash, the answer texts in the order shown and the
shuffle seed). The messages of a review, chairman or evaluator prompt carry
a random sandbox nonce, drawn per call; it is masked out of the key and out
of the kept reply, and the current call's nonce is put back into a reused
reply, so a ballot that quotes its nonce still parses. A reused call costs
nothing: its record says ``reused``, keeps its tokens, and is left out of
the run's cost. Ordinary runs never read or write the table.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from council.providers import Provider
from council.result import CouncilResult
from council.storage.call_reuse import StoredReply, queue_reply, stored_reply
from council.storage.store import Store
from council.types import ChatMessage, Completion, GenerationParams

#: Stands for the sandbox nonce in keys and kept replies (no nonce is ever drawn with these characters).
NONCE_MASK = "\u27e6nonce\u27e7"
#: What a failed write of a kept call costs (the run itself is stored apart).
NOT_KEPT = "a call could not be kept for reuse"


@dataclass
class CallReuse:
    """One run's access to the kept calls: look up, keep, and count what was reused.

    ``scope`` is added to every key, so calls that must not stand in for one
    another (an evaluation's repeats, which measure variance) never do.
    """

    store: Store
    scope: str = ""
    #: Calls answered from the table in this run, per kind.
    reused: Counter[str] = field(default_factory=Counter)

    def key(self, kind: str, provider: Provider, messages: Sequence[ChatMessage], params: GenerationParams | None,
            nonce: str | None = None, facts: dict[str, Any] | None = None) -> str:
        """The hash of what decides the reply to one call (the module docstring says what counts)."""
        sent = json.dumps([m.model_dump(mode="json") for m in messages], sort_keys=True)
        if nonce:
            sent = sent.replace(nonce, NONCE_MASK)
        decided = {
            "kind": kind, "scope": self.scope, "sent": sent, "facts": facts or {},
            "member": provider.member.model_dump(mode="json", exclude={"price"}),
            "params": params.model_dump(mode="json", exclude_none=True) if params is not None else None,
        }
        return hashlib.sha256(json.dumps(decided, sort_keys=True, default=str).encode()).hexdigest()

    async def lookup(self, key: str, kind: str, provider: Provider, nonce: str | None = None) -> Completion | None:
        """The kept reply to ``key`` as a completion (the current ``nonce`` put back), counted as reused; or None."""
        reply = await asyncio.to_thread(stored_reply, self.store, key)
        if reply is None:
            return None
        self.reused[kind] += 1
        content = reply.content.replace(NONCE_MASK, nonce) if nonce else reply.content
        return Completion(member=provider.member.name, provider=provider.name, model=provider.member.model,
                          content=content, finish_reason="stop", usage=reply.usage,
                          model_version=reply.model_version, attempts=0, simulated=provider.simulated)

    def keep(self, key: str, kind: str, completion: Completion, nonce: str | None = None) -> asyncio.Future[None]:
        """Keep a call's reply under ``key`` (written behind; the future says whether it was)."""
        content = completion.content.replace(nonce, NONCE_MASK) if nonce else completion.content
        return queue_reply(self.store, key, kind, StoredReply(content, completion.usage, completion.model_version))


async def reusable_call(
    reuse: CallReuse | None, kind: str, provider: Provider, messages: Sequence[ChatMessage],
    params: GenerationParams | None, call: Callable[[], Awaitable[Completion]], *,
    nonce: str | None = None, facts: dict[str, Any] | None = None,
    kept: Callable[[asyncio.Future[None]], None] | None = None,
) -> tuple[Completion, bool]:
    """A kept reply for this call, else ``call()``'s (then kept); and whether the reply was reused.

    Without ``reuse`` it is just ``call()``. Only a reply with text is kept:
    an empty one is a failure, worth asking again. ``kept`` receives the
    write of a new reply, for the caller to check.
    """
    if reuse is None:
        return await call(), False
    key = reuse.key(kind, provider, messages, params, nonce, facts)
    found = await reuse.lookup(key, kind, provider, nonce)
    if found is not None:
        return found, True
    completion = await call()
    if completion.content.strip():
        write = reuse.keep(key, kind, completion, nonce)
        if kept is not None:
            kept(write)
    return completion, False


def reused_in(result: CouncilResult) -> dict[str, int]:
    """How many calls of a council run were answered from kept replies, per kind (kinds with none left out)."""
    rounds = result.deliberation
    first_reviews = rounds.first_round.reviews if rounds is not None and rounds.first_round is not None else []
    counts = {"answer": sum(a.reused for a in result.answers),
              "review": sum(r.attempts for r in [*first_reviews, *result.reviews] if r.reused),
              "revision": sum(r.reused for r in rounds.revisions) if rounds is not None else 0,
              "chairman": int(result.final_answer is not None and result.final_answer.reused)}
    return {kind: n for kind, n in counts.items() if n}
