"""Stage 1 on its own: every member asked at once, failures and stragglers recorded, never raised."""

from __future__ import annotations

from council.pipeline.answer import collect_answers, member_failures, quorum_problem
from council.providers.simulated import SimulatedBehaviour
from council.result import Failure
from council.types import ChatMessage
from tests.pipeline.stages import answer, context, member


async def test_every_member_answers_in_member_order():
    ctx, events = context({"b": member("b says 42"), "a": member("a says 42")})
    records = await collect_answers(ctx)
    assert [(r.member, r.status, r.content) for r in records] == [("b", "ok", "b says 42"), ("a", "ok", "a says 42")]
    assert sorted(e.data["member"] for e in events if e.kind == "answer") == ["a", "b"]


async def test_a_crashing_member_and_an_empty_answer_are_failures_not_exceptions():
    def crash(_messages: list[ChatMessage]) -> str:
        raise RuntimeError("bug in a member")

    ctx, _ = context({"ok": member("fine"), "crash": crash, "empty": member("   ")})
    records = {r.member: r for r in await collect_answers(ctx)}
    assert records["ok"].status == "ok"
    assert records["crash"].status == "failed" and "RuntimeError: bug in a member" in records["crash"].error.message
    assert records["empty"].status == "failed" and records["empty"].error.reason == "protocol"


async def test_a_straggler_is_cut_at_the_stage_deadline():
    ctx, _ = context({"quick": member("fast"), "slow": SimulatedBehaviour(member("slow"), latency_ms=3_000)},
                     stages={"stage_deadline_s": 0.2, "member_timeout_s": 5})
    records = {r.member: r for r in await collect_answers(ctx)}
    assert records["quick"].status == "ok"
    # Cut by the stage's deadline, not by the member's own timeout, and not waited for: its answer is absent.
    slow = records["slow"]
    assert slow.status == "failed" and slow.content is None
    assert (slow.error.reason, slow.error.message) == ("timeout", "no answer by the stage deadline of 0.2s")


def test_failures_and_quorum_are_described():
    failed = answer("x", "", status="failed").model_copy(update={"error": Failure(reason="timeout", message="late")})
    assert member_failures([answer("a", "ok"), failed]) == "members failed: x (timeout)"
    assert member_failures([answer("a", "ok")]) is None
    blocked = answer("b", "bad", status="blocked")
    assert quorum_problem([answer("a", "ok"), blocked, failed], members=3, quorum=2) is None
    assert quorum_problem([answer("a", "ok"), failed], members=2, quorum=2) == \
        "quorum not met: 1 of 2 members answered, 2 needed"
    assert quorum_problem([failed], members=1, quorum=3) == "quorum not met: 0 of 1 members answered, 1 needed"
