"""FunctionMember and Council(members=...), used as a user's tests use them: through ``from council import ...``."""

from __future__ import annotations

import asyncio

import pytest

from council import (
    CallInfo,
    ChatMessage,
    ConfigError,
    Council,
    CouncilConfig,
    FunctionMember,
    FunctionReply,
    GenerationParams,
    RateLimitedError,
    SafetyConfig,
    Usage,
)

QUESTION = "Why is the sky blue?"


def marked(text: str) -> int:
    """Scores an answer by the number it ends with, so that the ranking is known in advance."""
    return int(text.rsplit(" ", 1)[-1])


def trio(**chairman: str) -> Council:
    members = [FunctionMember.answering("alice", "Rayleigh scattering, quality 9", score=marked),
               FunctionMember.answering("bob", "Something about the sea, quality 3", score=marked),
               FunctionMember.answering("carol", "Short light waves scatter more, quality 6", score=marked)]
    return Council(members=members, **chairman)


async def test_a_council_of_function_members_answers_reviews_ranks_and_chairs():
    async with trio(chairman="carol") as council:
        result = await council.ask(QUESTION)
    assert (result.status, result.degraded, result.simulated) == ("complete", False, True)
    assert {a.member: a.content for a in result.answers} == {
        "alice": "Rayleigh scattering, quality 9", "bob": "Something about the sea, quality 3",
        "carol": "Short light waves scatter more, quality 6"}
    assert sorted(r.reviewer for r in result.reviews if r.status == "ok") == ["alice", "bob", "carol"]
    assert [entry.member for entry in result.ranking] == ["alice", "carol", "bob"]
    assert result.final_answer is not None
    assert (result.final_answer.by, result.final_answer.source) == ("carol", "chairman")
    assert result.final_answer.content == "Rayleigh scattering, quality 9", "the helper's chairman keeps the top answer"
    assert {a.model for a in result.answers} == {"function:answering"}


async def test_the_function_is_told_who_is_asked_and_for_which_stage():
    seen: list[tuple[str, str, str]] = []

    def reply(messages: list[ChatMessage], info: CallInfo) -> str:
        seen.append((info.member, info.stage, messages[-1].content if info.stage == "answer" else ""))
        return f"{info.member} says it is scattering"

    members = [FunctionMember.answering("ann", "ann's answer"), FunctionMember("ben", reply)]
    async with Council(members=members, chairman="ben") as council:
        result = await council.ask(QUESTION)
    assert ("ben", "answer", QUESTION) in seen
    assert {stage for member, stage, _ in seen if member == "ben"} == {"answer", "review", "chairman"}
    review = next(r for r in result.reviews if r.reviewer == "ben")
    assert review.status == "failed" and review.error is not None, "a reply that is no ballot is a bad ballot: data"
    assert result.final_answer is not None and result.final_answer.content == "ben says it is scattering"


async def test_an_async_function_answers():
    async def slow(messages: list[ChatMessage], info: CallInfo) -> str:
        await asyncio.sleep(0.01)
        return f"awaited answer to {messages[-1].content}"

    council = Council(members=[FunctionMember.answering("a", slow), FunctionMember.answering("b", "plain")])
    result = await council.ask(QUESTION)
    await council.aclose()
    assert next(a for a in result.answers if a.member == "a").content == f"awaited answer to {QUESTION}"
    assert result.answers[0].model == "function:slow"


async def test_a_raising_function_is_a_failed_answer_with_its_reason_and_the_run_goes_on():
    def broken(messages: list[ChatMessage], info: CallInfo) -> str:
        raise ValueError("no answer today")

    members = [FunctionMember.answering("ok1", "fine, quality 5", score=marked),
               FunctionMember.answering("ok2", "also fine, quality 7", score=marked),
               FunctionMember("broken", broken)]
    async with Council(members=members) as council:
        result = await council.ask(QUESTION)
    failed = next(a for a in result.answers if a.member == "broken")
    assert failed.status == "failed" and failed.error is not None
    assert failed.error.reason == "upstream_error"
    assert "the reply function broken raised ValueError: no answer today" in failed.error.message
    assert result.status == "complete" and any("broken" in reason for reason in result.degraded_reasons)
    assert [entry.member for entry in result.ranking] == ["ok2", "ok1"]


async def test_a_function_that_raises_while_reviewing_is_a_failed_review_and_the_run_goes_on():
    honest = FunctionMember.answering("x", "", score=marked).reply

    def no_reviews(messages: list[ChatMessage], info: CallInfo) -> object:
        if info.stage == "review":
            raise RuntimeError("cannot judge")
        return "sulky but fine, quality 4" if info.stage == "answer" else honest(messages, info)

    members = [FunctionMember.answering("a", "fine, quality 5", score=marked),
               FunctionMember.answering("b", "good, quality 8", score=marked), FunctionMember("sulky", no_reviews)]
    async with Council(members=members) as council:
        result = await council.ask(QUESTION)
    review = next(r for r in result.reviews if r.reviewer == "sulky")
    assert review.status == "failed" and review.error is not None and review.error.reason == "upstream_error"
    assert "RuntimeError: cannot judge" in review.error.message
    assert result.status == "complete" and [entry.member for entry in result.ranking] == ["b", "a", "sulky"]


async def test_a_provider_error_raised_by_the_function_is_recorded_as_that_failure():
    def limited(messages: list[ChatMessage], info: CallInfo) -> str:
        raise RateLimitedError("slow down", provider="simulated", model="m", member=info.member)

    council = Council(members=[FunctionMember("a", limited), FunctionMember.answering("b", "an answer")])
    result = await council.ask(QUESTION)
    await council.aclose()
    error = next(a.error for a in result.answers if a.member == "a")
    assert error is not None and error.reason == "rate_limited"


async def test_a_reply_that_is_no_text_is_a_failed_call():
    council = Council(members=[FunctionMember("a", lambda messages, info: 42),
                               FunctionMember.answering("b", "an answer")])
    result = await council.ask(QUESTION)
    await council.aclose()
    error = next(a.error for a in result.answers if a.member == "a")
    assert error is not None and "returned a int, not a str or a FunctionReply" in error.message


async def test_a_function_reply_carries_usage_and_finish_reason_and_a_string_is_cut_by_max_tokens():
    usage = Usage(prompt_tokens=11, completion_tokens=3)
    rich = FunctionMember("rich", lambda messages, info: FunctionReply("cut short", usage=usage,
                                                                        finish_reason="length"))
    long = FunctionMember("long", lambda messages, info: "one two three four five",
                          params=GenerationParams(max_tokens=2))
    council = Council(members=[rich, long])
    completion = await council.provider("rich").complete([ChatMessage(role="user", content=QUESTION)])
    assert (completion.content, completion.usage, completion.finish_reason) == ("cut short", usage, "length")
    streamed = await council.provider("long").stream([ChatMessage(role="user", content=QUESTION)]).collect()
    assert (streamed.content, streamed.finish_reason) == ("one two", "length")


async def test_the_safety_classifier_stage_reaches_the_function():
    stages: list[str] = []
    plain = FunctionMember.answering("judge", "harmless, quality 5", score=marked).reply

    def classifier(messages: list[ChatMessage], info: CallInfo) -> object:
        stages.append(info.stage)
        if info.stage == "safety":
            return '{"safe": false, "category": "self_harm", "evidence": "the answer"}'
        return plain(messages, info)

    config = CouncilConfig(members=[FunctionMember("judge", classifier),
                                    FunctionMember.answering("other", "harmless too, quality 4", score=marked)],
                           safety=SafetyConfig(llm_member="judge"))
    async with Council(config, store=False) as council:
        result = await council.ask(QUESTION)
    assert "safety" in stages
    assert {a.status for a in result.answers} == {"blocked"}, "the function's verdicts were read"


def test_a_council_in_memory_keeps_no_store_and_defaults_the_rest():
    council = Council(members=[FunctionMember.answering("solo", "alone")])
    assert council.store is None
    assert council.member_names == ["solo"]
    assert council.config.chairman is None and council.config.stages.quorum == 1


def test_council_takes_a_config_or_members_and_names_what_is_wrong():
    member = FunctionMember.answering("a", "x")
    with pytest.raises(TypeError, match="members="):
        Council()
    with pytest.raises(TypeError, match="members="):
        Council(CouncilConfig.in_memory([member]), members=[member])
    with pytest.raises(ConfigError, match="chairman 'z' is not a member"):
        Council(members=[member], chairman="z")
    with pytest.raises(ConfigError, match="unique"):
        Council(members=[member, FunctionMember.answering("a", "y")])


def test_the_function_is_not_part_of_the_configs_data():
    one = FunctionMember("a", lambda messages, info: "one", model="m")
    other = FunctionMember("a", lambda messages, info: "other", model="m")
    assert one.model_dump() == other.model_dump()
    assert one.model_dump()["provider"] == "simulated"
    assert one != other, "members with different functions are different members"
