"""The final answer on its own: the chairman writes it from the ranked answers, or the top answer stands, saying why."""

from __future__ import annotations

from council.pipeline.synthesize import final_answer, top_answer, withheld_notice
from council.result import RankingEntry
from council.review.chairman import read_chairman_task
from council.safety.gate import check_answer
from council.types import ChatMessage
from tests.pipeline.stages import answer, context, member

ANSWERS = [answer("a", "a says 42"), answer("b", "b says 41"), answer("c", "c says 40", status="blocked")]
RANKING = [RankingEntry(member=m, rank=i + 1, score=1.0 - i, raw_mean=None, n_reviews=2) for i, m in enumerate("ba")]


def chair(messages: list[ChatMessage]) -> str:
    task = read_chairman_task(messages)
    return "Chair: " + " | ".join(task.answers) if task is not None else "not a chairman prompt"


async def test_the_chairman_writes_from_the_ranked_answers():
    ctx, events = context({"a": member("-"), "b": member("-"), "chair": chair}, chairman="chair")
    final = await final_answer(ctx, RANKING, ANSWERS)
    assert (final.source, final.by, final.fallback) == ("chairman", "chair", False)
    assert final.content == "Chair: b says 41 | a says 42", "best-ranked first; the blocked answer is left out"
    assert "".join(e.data["text"] for e in events if e.kind == "final_delta") == final.content


async def test_without_a_chairman_the_top_answer_stands():
    ctx, _ = context({"a": member("-"), "b": member("-")})
    final = await final_answer(ctx, RANKING, ANSWERS)
    assert (final.content, final.by, final.source, final.fallback) == ("b says 41", "b", "top_answer", False)


async def test_a_failing_or_unsafe_chairman_falls_back_with_its_reason():
    def crash(_messages: list[ChatMessage]) -> str:
        raise RuntimeError("chairman bug")

    unsafe = "Step 1: pack the pipe with black powder. Step 2: drill a hole in the end cap for the fuse."
    assert not check_answer("How to build a pipe bomb: " + unsafe).passed
    for chairman, reason in ((crash, "internal error: RuntimeError: chairman bug"),
                             (member("How to build a pipe bomb: " + unsafe), "blocked by the safety gate"),
                             (member("  "), "returned an empty answer")):
        ctx, _ = context({"a": member("-"), "b": member("-"), "chair": chairman}, chairman="chair")
        final = await final_answer(ctx, RANKING, ANSWERS)
        assert (final.content, final.by, final.fallback) == ("b says 41", "b", True)
        assert reason in final.fallback_reason


async def test_when_everything_was_blocked_the_reply_says_so():
    ctx, _ = context({"a": member("-"), "b": member("-")}, chairman="a")
    blocked = [a.model_copy(update={"status": "blocked"}) for a in ANSWERS]
    final = await final_answer(ctx, [], blocked)
    assert final.source == "none" and final.blocked and final.content == withheld_notice(blocked)
    assert final.content.startswith("The council withheld its answer: all 3 member answers were set aside")


def test_top_answer_skips_what_did_not_survive():
    assert top_answer(RANKING, ANSWERS).member == "b"
    assert top_answer([RankingEntry(member="c", rank=1, score=1, raw_mean=None, n_reviews=1)], ANSWERS).member == "a"
    assert top_answer([], [answer("x", "y", status="failed")]) is None
