"""How a council run is answered on the chat endpoint: the council block, failures, and the stream.

:func:`council_summary` is the extra top-level ``council`` object of a
response; :func:`failure_error` the error a run that could not answer
becomes; :class:`CouncilStream` plays a run's stage events onto an SSE
stream in the order chat clients expect (progress as reasoning, then the
final answer, a finish chunk, usage, ``[DONE]``). Routing and admission are
:mod:`council.server.chat`'s.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from council.errors import CouncilError
from council.events import StageEvent, describe
from council.logs import get_logger
from council.pipeline import RunPlan, cost_summary
from council.result import CouncilResult
from council.server.schema import ApiError
from council.server.wire import ChunkWriter

NO_RETRY = {"x-should-retry": "false"}  # an SDK retry would rerun the whole council
_log = get_logger("server.chat")


def council_summary(result: CouncilResult) -> dict[str, Any]:
    """The extra top-level ``council`` object of a response (``deliberation`` only when review.rounds is 2)."""
    final = result.final_answer
    summary: dict[str, Any] = {
        "run_id": result.run_id,
        "status": result.status,
        "ranking": [{"member": e.member, "rank": e.rank, "score": e.score,
                     "rank_probabilities": e.rank_probabilities} for e in result.ranking],
        "ranking_confidence": result.ranking_confidence,
        "tied_for_first": result.tied_for_first,
        "final_by": final.by if final else None,
        "fallback": final.fallback if final else None,
        "degraded": result.degraded,
        "degraded_reasons": result.degraded_reasons,
        "simulated": result.simulated,
        "stored": result.stored,
        "preset": result.preset,
        "judging": result.judging.model_dump(mode="json") if result.judging is not None else None,
        "cost": cost_summary(result),
    }
    if result.deliberation is not None:
        # Only a council with review.rounds: 2 has one; other responses keep their shape.
        summary["deliberation"] = result.deliberation.brief()
    return summary


def failure_error(result: CouncilResult) -> ApiError:
    """502, or 503 when every failure was temporary; never retried by SDKs, since a retry reruns the council."""
    reasons = {a.error.reason for a in result.answers if a.error is not None}
    status = 503 if reasons and reasons <= {"rate_limited", "timeout"} else 502
    return ApiError(status, f"the council could not answer: {result.error}", type="server_error",
                    code="council_failed", headers={**NO_RETRY, "x-council-run-id": result.run_id})


def answered(result: CouncilResult) -> bool:
    """True for a run with something to send: an answer, or (``blocked``) the line saying it was withheld."""
    return result.status in ("complete", "blocked") and result.final_answer is not None


def finish_reason(result: CouncilResult) -> str:
    """``content_filter`` when the safety gate left no answer, else ``stop``."""
    return "content_filter" if result.final_answer is not None and result.final_answer.blocked else "stop"


def decided_call(plan: RunPlan, result: CouncilResult) -> tuple[str | None, list[dict[str, Any]] | None]:
    """What a run that decided about tools answers: its text (None for a call) and its ``tool_calls`` (None for text).

    A run with no tools decision, or one that failed or was blocked,
    answers its final text as it is.
    """
    output, final = plan.output, result.final_answer
    if final is None:
        return None, None
    if output is None or not output.calls or final.blocked or not answered(result):
        return final.content, None
    value = json.loads(final.content)
    call = output.call_of(value)
    if call is None:
        return output.reply_of(value), None
    name, arguments = call
    return None, [{"id": f"call_{result.run_id[:24]}", "type": "function",
                   "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]


class CouncilStream:
    """Plays one council run onto an SSE stream, in the order chat clients expect."""

    def __init__(self, writer: ChunkWriter, task: asyncio.Task[CouncilResult], queue: asyncio.Queue[StageEvent],
                 progress: str, keepalive_s: float,
                 calls: Callable[[CouncilResult], tuple[str | None, list[dict[str, Any]] | None]] | None = None,
                 ) -> None:
        self.writer = writer
        #: A run that decides about tools sends its decision at the end: ``tool_calls`` and no content, or its text.
        self.calls = calls
        self.task = task
        self.queue = queue
        self.progress = progress
        self.keepalive_s = keepalive_s
        self.thinking = False
        self.streamed_final = False

    async def play(self) -> None:
        await self.writer.delta({"role": "assistant", "content": ""})
        while True:
            getter = asyncio.ensure_future(self.queue.get())
            try:
                done, _ = await asyncio.wait({getter, self.task}, timeout=self.keepalive_s,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                # When the client leaves mid-wait this handler is cancelled: the getter must not outlive it.
                if not getter.done():
                    getter.cancel()
            if getter in done:
                await self._on_event(getter.result())
                continue
            if self.task in done:
                while not self.queue.empty():
                    await self._on_event(self.queue.get_nowait())
                break
            await self.writer.keepalive()
        if self.task.cancelled():
            # Stopped by the server's shutdown: end the stream the way clients expect, with a reason.
            await self.writer.error("the server is shutting down and stopped this council run before it finished",
                                    code="run_interrupted")
            await self.writer.done()
            return
        try:
            result = self.task.result()
        except CouncilError as error:
            await self.writer.error(f"the council could not answer: {error}", code="council_failed")
            await self.writer.done()
            return
        except Exception as error:
            _log.error("run_crashed", error=error)
            await self.writer.error("internal error while running the council", code="internal_error")
            await self.writer.done()
            return
        await self._finish(result)

    async def _reason(self, text: str) -> None:
        if self.progress == "reasoning_content":
            await self.writer.delta({"reasoning_content": text + "\n"})
        elif self.progress == "think":
            opening = "" if self.thinking else "<think>\n"
            self.thinking = True
            await self.writer.delta({"content": opening + text + "\n"})

    async def _close_thinking(self) -> None:
        if self.thinking:
            self.thinking = False
            await self.writer.delta({"content": "</think>\n\n"})

    async def _on_event(self, event: StageEvent) -> None:
        if self.calls is not None and event.kind in ("final_delta", "final"):
            await self._close_thinking()
            return
        if event.kind == "final_delta":
            await self._close_thinking()
            self.streamed_final = True
            await self.writer.delta({"content": event.data["text"]})
            return
        if event.kind == "final":
            await self._close_thinking()
            if event.data.get("source") == "chairman":
                return
            content = event.data.get("content") or ""
            if self.streamed_final:
                # The chairman's text already went out; say plainly what follows it.
                content = f"\n\n[The chairman's answer was not usable; the top-ranked answer follows.]\n\n{content}"
            if content:
                await self.writer.delta({"content": content})
            return
        line = describe(event)
        if line is not None:
            await self._reason(line)

    async def _finish(self, result: CouncilResult) -> None:
        await self._close_thinking()
        if (refusal := result.refusal) is not None:
            await self.writer.delta({"refusal": refusal})
            await self.writer.delta({}, "stop")
            await self.writer.usage(result.usage)
            await self.writer.done()
            return
        if not answered(result):
            await self.writer.error(f"the council could not answer: {result.error}", code="council_failed")
            await self.writer.done()
            return
        content, call = self.calls(result) if self.calls is not None else (None, None)
        if call:
            await self.writer.delta({"tool_calls": [{"index": 0, **c} for c in call]})
        elif self.calls is not None and content:
            await self.writer.delta({"content": content})  # the text answer, or the withheld line when blocked
        await self.writer.delta({}, "tool_calls" if call else finish_reason(result))
        await self.writer.usage(result.usage)
        await self.writer.done()
