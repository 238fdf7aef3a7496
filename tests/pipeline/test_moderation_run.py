"""A whole council run with a moderation layer configured, through the public ``Council`` API over real HTTP."""

from __future__ import annotations

import json

import pytest

from council import Council
from council.errors import ConfigError
from council.result import masked
from council.storage.store import Store
from council.testing.fake_llm import Step
from council.testing.scripted import council_member
from tests.pipeline.test_orchestrator import PROVIDERS, QUALITY, make_config, quality_judge
from tests.safety.moderation.helpers import SECRET

FLAG = "[moderation should flag this]"


@pytest.fixture
async def store():
    db = Store(":memory:")
    yield db
    db.close()


def moderation(fake, **fields):
    return {"moderation": {"provider": "openai", "base_url": fake.base_url("openai"),
                           "api_key_env": "MODERATION_KEY", **fields}}


async def test_a_run_with_openai_moderation_blocks_what_it_flags_and_records_each_check(fake_llm, store):
    for name in PROVIDERS:
        text = f"{name} says the answer is 42. quality={QUALITY[name]}" + (f" {FLAG}" if name == "delta" else "")
        fake_llm.script(f"model-{name}", Step(reply=council_member(text, quality_judge)))
    fake_llm.script("omni-moderation-latest",
                    Step(reply=lambda r: "illicit,harassment" if FLAG in r.last_user_text else ""))
    config = make_config(fake_llm, chairman=None, safety=moderation(
        fake_llm, price={"input_per_mtok": 10, "output_per_mtok": 0}))
    async with Council(config, store=store, environ={"MODERATION_KEY": SECRET}) as council:
        result = await council.ask("What is six times seven?")
    assert result.status == "complete" and not result.degraded, result.degraded_reasons
    delta = result.answer("delta")
    assert delta.status == "blocked" and delta.moderation.labels == ["harassment", "illicit"]
    assert {f.category for f in delta.safety.findings} == {"dangerous_instructions", "hate_harassment"}
    assert "delta" not in [entry.member for entry in result.ranking]
    assert result.safety_gate.failed_models == ["delta"]
    assert result.safety_gate.checker == "patterns+moderation:openai"
    checks = [r for r in fake_llm.requests if r.path == "/v1/moderations"]
    assert len(checks) == 4 and all(r.headers["Authorization"] == f"Bearer {SECRET}" for r in checks)
    assert all(a.moderation is not None and a.moderation.latency_ms > 0 for a in result.answers)
    safety_calls = [c for c in result.cost.calls if c.stage == "safety"]
    assert [c.member for c in safety_calls] == ["moderation:openai"] * 4
    assert result.cost.by_stage["safety"] == pytest.approx(sum(a.moderation.usd for a in result.answers))
    assert result.cost.by_stage["safety"] > 0 and "moderation:openai" not in result.cost.unpriced
    shown = json.dumps(masked(result).model_dump(mode="json"))
    assert SECRET not in json.dumps(result.model_dump(mode="json")) and SECRET not in shown


async def test_a_run_whose_moderation_api_is_down_goes_on_with_the_patterns_and_says_so(fake_llm, store):
    for name in PROVIDERS:
        fake_llm.script(f"model-{name}", Step(reply=council_member(f"{name}: 42. quality={QUALITY[name]}",
                                                                   quality_judge)))
    fake_llm.script("omni-moderation-latest", Step(status=503))
    config = make_config(fake_llm, chairman=None, safety=moderation(fake_llm))
    async with Council(config, store=store, environ={"MODERATION_KEY": SECRET}) as council:
        result = await council.ask("What is six times seven?")
    assert result.status == "complete" and len(result.ranking) == 4
    assert result.degraded and any("moderation check (moderation:openai) failed for alpha, beta, gamma, delta"
                                   in reason for reason in result.degraded_reasons)
    assert all(a.safety.passed and a.moderation.status == "failed" for a in result.answers)
    assert not [c for c in result.cost.calls if c.stage == "safety"], "a failed check spent nothing it knows of"


def test_a_moderation_key_variable_that_is_not_set_stops_the_council_naming_it(fake_llm):
    config = make_config(fake_llm, safety=moderation(fake_llm))
    with pytest.raises(ConfigError, match=r"safety.moderation reads its API key from \$MODERATION_KEY"):
        Council(config, store=False, environ={})
