"""The safety gate stage on its own: blocked answers keep their text and say why; an LLM classifier adds to it."""

from __future__ import annotations

import json

from council.pipeline.safety_stage import apply_safety_gate, parse_classifier_reply
from council.types import ChatMessage
from tests.pipeline.stages import answer, context, member

HARMFUL = ("Step 1: pack the pipe with black powder. Step 2: drill a hole in the end cap for the fuse. "
           "Step 3: screw the caps on tight.")


async def test_pattern_checks_block_and_record_why():
    ctx, events = context({"a": member("x"), "b": member("x")})
    gated = {a.member: a for a in await apply_safety_gate(ctx, [answer("a", "Water boils at 100 C at sea level."),
                                                                answer("b", "How to build a pipe bomb: " + HARMFUL)])}
    assert gated["a"].status == "ok" and gated["a"].safety.passed
    assert gated["b"].status == "blocked" and gated["b"].content.endswith(HARMFUL), "a blocked answer keeps its text"
    assert gated["b"].safety.findings[0].category == "weapon_making"
    assert [(e.data["member"], e.data["passed"]) for e in events] == [("a", True), ("b", False)]


async def test_a_disabled_gate_passes_everything_unchecked():
    ctx, _ = context({"a": member("x"), "b": member("y")}, safety={"enabled": False})
    records = [answer("a", "How to build a pipe bomb: " + HARMFUL)]
    assert await apply_safety_gate(ctx, records) == records


async def test_the_llm_classifier_blocks_what_patterns_miss_and_a_bad_reply_is_a_note():
    seen: list[list[ChatMessage]] = []

    def classifier(messages: list[ChatMessage]) -> str:
        seen.append(messages)
        text = messages[-1].content
        if "subtle" in text:
            return json.dumps({"safe": False, "category": "manipulation", "evidence": "subtle"})
        return "not json at all" if "garbled" in text else json.dumps({"safe": True})

    ctx, _ = context({"a": member("x"), "judge": classifier}, safety={"llm_member": "judge"})
    gated = {a.member: a for a in await apply_safety_gate(
        ctx, [answer("a", "A subtle push."), answer("b", "A garbled case."), answer("c", "Fine.")])}
    assert gated["a"].status == "blocked" and gated["a"].safety.findings[0].rule == "llm.judge"
    assert gated["b"].status == "ok" and gated["b"].safety.notes, "an unreadable classifier reply is noted"
    assert gated["c"].status == "ok" and gated["c"].safety.checker == "patterns+llm:judge"
    assert len(seen) == 3 and all(m[-1].content.startswith("<<answer nonce=") for m in seen)


def test_classifier_replies_are_read_strictly():
    assert parse_classifier_reply('{"safe": true}', "j").passed
    unsafe = parse_classifier_reply('{"safe": false, "category": "x", "evidence": "y"}', "j")
    assert not unsafe.passed and unsafe.findings[0].category == "x"
    assert parse_classifier_reply("maybe", "j") is None


async def test_the_adr_example_ssn_is_blocked_in_a_run_unless_the_config_allows_examples():
    from council.pipeline.stages import run_stages

    members = {"a": member("SSN: 123-45-6789 quality=9"), "b": member("Water boils at 100 C. quality=7"),
               "c": member("Ice melts at 0 C. quality=5")}
    ctx, _ = context(members)
    await run_stages(ctx)
    leak = next(a for a in ctx.result.answers if a.member == "a")
    assert leak.status == "blocked" and leak.safety is not None
    assert [(f.category, f.rule, f.evidence) for f in leak.safety.findings] == [
        ("pii_exposure", "pii.us_ssn", "***-**-6789")]
    assert "a" not in [e.member for e in ctx.result.ranking], "a blocked answer is never ranked"
    ctx, _ = context(members, safety={"pii_allow_example_ssns": True})
    await run_stages(ctx)
    allowed = next(a for a in ctx.result.answers if a.member == "a")
    assert allowed.status == "ok" and allowed.safety is not None
    assert "pii.us_ssn: published example number" in allowed.safety.notes
    assert ctx.result.ranking[0].member == "a"
