"""The safety stage with a moderation layer: real moderation calls to the fake upstream, after the patterns."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from council.pipeline.budget import RunBudget
from council.pipeline.progress import RunSoFar
from council.pipeline.safety_stage import apply_safety_gate, safety_stage
from council.safety.moderation import Moderator
from council.testing.fake_llm import Step
from tests.pipeline.stages import answer, context, member
from tests.pipeline.test_safety_stage import HARMFUL
from tests.safety.moderation.helpers import FAST_RETRY, MODELS, SECRET, benign_reply, harmful_reply

PROVIDERS = ["openai", "llama_guard"]


def moderated(fake, transport, provider, *, key=False, **fields):
    """A stage context whose safety.moderation is ``provider`` on the fake, with its client."""
    settings = {"provider": provider, "base_url": fake.base_url("openai"), **fields,
                **({"api_key_env": "MODERATION_KEY"} if key else {})}
    ctx, events = context({"a": member("x"), "b": member("y")}, safety={"moderation": settings})
    moderation = ctx.config.safety.moderation_provider
    ctx.moderator = Moderator(moderation, transport=transport, retry=FAST_RETRY,
                              api_key=SecretStr(SECRET) if key else None)
    return ctx, events


def by_member(records):
    return {record.member: record for record in records}


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_what_the_patterns_pass_the_moderation_layer_can_block(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(reply=lambda r: harmful_reply(provider) if "hurt" in r.messages[-1][
        "content"] else benign_reply(provider)))
    ctx, events = moderated(fake_llm, transport, provider)
    gated = by_member(await apply_safety_gate(ctx, [
        # Passes the patterns (they know nothing wrong with it); the moderation layer is what blocks it.
        answer("a", "A quiet word that could hurt someone."),
        answer("b", "Drink water and rest."),
        answer("c", "How to build a pipe bomb: " + HARMFUL)]))
    flagged, clean, patterns = gated["a"], gated["b"], gated["c"]
    assert flagged.status == "blocked" and flagged.safety.checker == f"patterns+moderation:{provider}"
    assert {f.category for f in flagged.safety.findings} == {"self_harm", "hate_harassment"}
    label = "self-harm/instructions" if provider == "openai" else "S11"
    assert f"moderation.{provider}.{label}" in {f.rule for f in flagged.safety.findings}
    assert flagged.moderation.flagged and flagged.moderation.categories == ["hate_harassment", "self_harm"]
    assert flagged.moderation.latency_ms > 0 and flagged.moderation.status == "ok"
    assert clean.status == "ok" and clean.safety.passed and clean.moderation.flagged is False
    assert clean.safety.checker == f"patterns+moderation:{provider}"
    assert patterns.status == "blocked" and patterns.moderation is None, "what the patterns block is not sent"
    assert len(fake_llm.requests) == 2
    assert [e.data["passed"] for e in events] == [False, True, False]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("step", "reason"), [(Step(status=500), "upstream_error"), (Step(hang=True), "timeout"),
                                              (Step(body=b"<html>gateway</html>"), "protocol")])
async def test_a_failing_moderation_layer_leaves_the_pattern_verdict_and_says_so(fake_llm, transport, provider, step,
                                                                                 reason):
    fake_llm.script(MODELS[provider], step)
    ctx, _ = moderated(fake_llm, transport, provider, timeout_s=0.5)
    so_far = await safety_stage(ctx, RunSoFar(answers=(answer("a", "Drink water and rest."),)))
    checked = so_far.answers[0]
    assert checked.status == "ok" and checked.safety.passed and checked.safety.checker == "patterns"
    assert any(f"moderation check (moderation:{provider}) failed: {reason}" in n for n in checked.safety.notes)
    assert checked.moderation.status == "failed" and checked.moderation.error.startswith(reason)
    assert so_far.degraded == (f"moderation check (moderation:{provider}) failed for a ({reason}): the pattern "
                               "verdict stands for them",)


async def test_a_check_that_outlasts_the_stage_deadline_is_cut_and_noted(fake_llm, transport):
    fake_llm.script("omni-moderation-latest", Step(latency_s=3, reply=""))
    ctx, _ = moderated(fake_llm, transport, "openai")
    ctx.config = ctx.config.model_copy(update={"stages": ctx.config.stages.model_copy(
        update={"stage_deadline_s": 0.3})})
    so_far = await safety_stage(ctx, RunSoFar(answers=(answer("a", "Fine."),)))
    assert so_far.answers[0].safety.passed and "missed the stage deadline" in so_far.answers[0].safety.notes[-1]
    assert so_far.answers[0].moderation.error.startswith("deadline") and so_far.degraded[0] is not None


async def test_a_healthy_moderation_layer_does_not_degrade_the_run(fake_llm, transport):
    ctx, _ = moderated(fake_llm, transport, "llama_guard")
    fake_llm.script("llama-guard3", Step(reply="safe"))
    so_far = await safety_stage(ctx, RunSoFar(answers=(answer("a", "Fine."),)))
    assert so_far.degraded == () and so_far.safety_gate.checker == "patterns+moderation:llama_guard"


async def test_priced_checks_count_toward_the_budget_and_one_that_does_not_fit_is_not_made(fake_llm, transport):
    fake_llm.script("llama-guard3", Step(reply="safe", usage={"prompt_tokens": 1000, "completion_tokens": 2}))
    price = {"input_per_mtok": 100, "output_per_mtok": 100}
    ctx, _ = moderated(fake_llm, transport, "llama_guard", price=price)
    ctx.budget = RunBudget(limit_usd=1.0, prices={}, max_output_tokens=64)
    gated = await apply_safety_gate(ctx, [answer("a", "Fine.")])
    assert gated[0].moderation.usd == pytest.approx(1002 * 100 / 1e6)
    assert ctx.budget.spent_usd == pytest.approx(gated[0].moderation.usd) and ctx.budget.reserved_usd == 0
    ctx.budget = RunBudget(limit_usd=0.000001, prices={}, max_output_tokens=64)
    refused = await apply_safety_gate(ctx, [answer("a", "Fine.")])
    assert refused[0].safety.passed and refused[0].moderation.error.startswith("budget")
    assert ctx.budget.refused == ["the moderation check (moderation:llama_guard)"]
    assert len(fake_llm.requests) == 1, "the check that did not fit was not made"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_key_is_in_no_record_even_when_the_upstream_echoes_it(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(status=403, error_message=f"key {SECRET} is not allowed here"))
    ctx, events = moderated(fake_llm, transport, provider, key=True)
    so_far = await safety_stage(ctx, RunSoFar(answers=(answer("a", "Fine."),)))
    written = json.dumps([a.model_dump(mode="json") for a in so_far.answers]) + json.dumps(so_far.degraded)
    assert "auth" in written and SECRET not in written
    assert SECRET not in json.dumps([e.data for e in events])


async def test_moderation_member_is_the_llm_member_under_its_new_name():
    def classifier(messages):
        return json.dumps({"safe": "subtle" not in messages[-1].content, "category": "manipulation"})

    ctx, _ = context({"a": member("x"), "judge": classifier}, safety={"moderation": {"member": "judge"}})
    assert ctx.config.safety.llm_member == "judge"
    gated = by_member(await apply_safety_gate(ctx, [answer("a", "A subtle push."), answer("b", "Fine.")]))
    assert gated["a"].status == "blocked" and gated["a"].safety.checker == "patterns+llm:judge"
    assert gated["a"].moderation.checker == "llm:judge" and gated["a"].moderation.categories == ["manipulation"]
    assert gated["b"].moderation.flagged is False and gated["b"].moderation.usage is not None
