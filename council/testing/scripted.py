"""Scripted council members for the fake LLM server: they answer, review and chair.

A reply function built here reads what each request asks for. A review
prompt gets a ballot scored by ``judge`` (a function of the answer text), a
second round's revision prompt a decision (keep, unless ``revise`` says
otherwise), an evaluator prompt a strict-JSON verdict, a chairman prompt a
synthesis, and anything else the member's answer.
Tests and benchmarks use them to run whole councils over real HTTP. The
replies themselves (ballots, decisions, verdicts) are written by
:mod:`council.simulation.honest`, which :class:`council.FunctionMember`
shares; its names stay importable from here.
"""

from __future__ import annotations

from collections.abc import Callable

from council.review.chairman import read_chairman_task
from council.review.evaluation import EvaluationTask, read_evaluation_task
from council.review.prompt import ReviewTask, read_review_task
from council.review.revision import RevisionTask, read_revision_task
from council.simulation.honest import (
    Flagger,
    by_length,
    honest_ballot,
    reference_verdict,
    revision_reply,
    strict_verdict,
)
from council.testing.fake_llm import RecordedRequest
from council.types import ChatMessage

Judge = Callable[[str], int]
CHAIRMAN_PREFIX = "Chairman's synthesis: "


def request_messages(request: RecordedRequest) -> list[ChatMessage]:
    """The request's conversation as council messages."""
    roles = {"system", "user", "assistant"}
    return [ChatMessage(role=m["role"] if m["role"] in roles else "user", content=m["content"])
            for m in request.messages]


def is_chairman_prompt(messages: list[ChatMessage]) -> bool:
    """True for the Stage 3 chairman prompt."""
    return read_chairman_task(messages) is not None


def default_verdict(task: EvaluationTask, request: RecordedRequest) -> str:
    """An evaluator's verdict: full marks when the candidate contains the reference answer, else 1 and 2."""
    return reference_verdict(task)


def council_member(
    answer: str | Callable[[RecordedRequest], str],
    judge: Judge | None = None,
    *,
    review: Callable[[ReviewTask, RecordedRequest], str] | None = None,
    evaluate: Callable[[EvaluationTask, RecordedRequest], str] | None = None,
    revise: Callable[[RevisionTask, RecordedRequest], str] | None = None,
    flag: Flagger | None = None,
) -> Callable[[RecordedRequest], str]:
    """A reply function for ``Step(reply=...)`` that plays a full council member.

    ``evaluate`` answers evaluator prompts (``council eval``); by default
    :func:`default_verdict`. ``revise`` answers a second round's revision
    prompt (see :func:`revision_reply`); by default the member keeps its answer.
    ``flag`` says what the member flags in an answer it reviews (harmful help, text aimed at the
    reviewers: :class:`council.review.flags.ReviewFlags`); by default nothing.
    """

    def reply(request: RecordedRequest) -> str:
        messages = request_messages(request)
        task = read_review_task(messages)
        if task is not None:
            if review is not None:
                return review(task, request)
            return honest_ballot(task, judge or by_length, flag=flag)
        revision = read_revision_task(messages)
        if revision is not None:
            return revise(revision, request) if revise is not None else revision_reply(revision)
        evaluation = read_evaluation_task(messages)
        if evaluation is not None:
            return (evaluate or default_verdict)(evaluation, request)
        if is_chairman_prompt(messages):
            return CHAIRMAN_PREFIX + request.model
        return answer(request) if callable(answer) else answer

    return reply


def quality_of(model: str) -> int:
    """A fixed answer quality (3..9) per model name, for councils served by :func:`serve`."""
    return 3 + sum(model.encode()) % 7


def scripted_answer(request: RecordedRequest) -> str:
    """What a member served by :func:`serve` answers: its name and its quality marker."""
    return f"{request.model} answers: {request.last_user_text[:80]} quality={quality_of(request.model)}"


def _quality_judge(text: str) -> int:
    marker = text.rsplit("quality=", 1)
    return int(marker[1][:1]) if len(marker) == 2 and marker[1][:1].isdigit() else 1


def serve(argv: list[str] | None = None) -> None:
    """Run a fake upstream whose every model is a scripted council member (for benchmarks).

    ``python -m council.testing.scripted --latency 0.2 --slow model-x=5 --fault-500 0.05`` prints
    ``PORT <n>`` once listening, then serves until killed.
    """
    import argparse
    import asyncio
    import contextlib

    from council.testing.fake_llm import FakeLLMServer, RandomFaults, Step

    parser = argparse.ArgumentParser(prog="python -m council.testing.scripted")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every reply")
    parser.add_argument("--slow", action="append", default=[], metavar="MODEL=SECONDS")
    parser.add_argument("--no-record", action="store_true", help="keep no request log (long benchmarks)")
    parser.add_argument("--fault-500", type=float, default=0.0, metavar="RATE",
                        help="share of unscripted requests answered with HTTP 500")
    parser.add_argument("--fault-429", type=float, default=0.0, metavar="RATE",
                        help="share answered with HTTP 429 and Retry-After")
    parser.add_argument("--retry-after", type=int, default=1, metavar="SECONDS")
    parser.add_argument("--seed", type=int, default=None, help="seed of the fault draw")
    args = parser.parse_args(argv)

    async def run() -> None:
        server = FakeLLMServer(record=not args.no_record)
        server.default_latency_s = args.latency
        server.default_reply = council_member(scripted_answer, _quality_judge)
        for item in args.slow:
            model, _, seconds = item.partition("=")
            server.script(model, Step(latency_s=float(seconds), reply=server.default_reply))
        if args.fault_500 or args.fault_429:
            server.inject_random_faults(RandomFaults(args.fault_500, args.fault_429, args.retry_after, args.seed))
        await server.start(port=args.port)
        print(f"PORT {server.port}", flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


__all__ = ["CHAIRMAN_PREFIX", "council_member", "default_verdict", "honest_ballot", "is_chairman_prompt", "quality_of",
           "request_messages", "revision_reply", "scripted_answer", "serve", "strict_verdict"]


if __name__ == "__main__":
    serve()
