"""The straggler policy over real HTTP: once the quorum is in, a slow member is not waited for, and is said late.

The fake upstream scripts each model's requests in order (answer, review,
chairman), so one member can be slow to answer only, or hang.
"""

from __future__ import annotations

import pytest

from council import Council, CouncilConfig
from council.assets import config_dir
from council.config import load_config
from council.config_errors import ConfigError
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.pipeline.test_lifecycle import quality_judge

FAST = ("alpha", "beta", "gamma")


def config(fake: FakeLLMServer, tmp_path, factor: float | None, **stages: object) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": fake.base_url("openai")}
                    for n in (*FAST, "slow")],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
        "stages": {"stage_deadline_s": 30, "member_timeout_s": 30, "quorum": 2, "straggler_factor": factor,
                   **stages},
        "storage": {"path": str(tmp_path / "runs.db")},
    })


def member(name: str, quality: int) -> Step:
    return Step(reply=council_member(f"{name} says 42. quality={quality}", quality_judge))


def script_fast(fake: FakeLLMServer, chairman_latency_s: float = 0.0) -> None:
    for quality, name in enumerate(FAST, start=6):
        steps = [member(name, quality)]
        if name == "alpha":  # its answer, its review, then the chairman's call
            steps = [member(name, quality), member(name, quality),
                     Step(latency_s=chairman_latency_s, reply=member(name, quality).reply)]
        fake.script(f"model-{name}", *steps)


async def test_a_hanging_member_is_cut_as_late_once_the_quorum_is_in(fake_llm, tmp_path):
    script_fast(fake_llm)
    fake_llm.script("model-slow", Step(hang=True))
    async with Council(config(fake_llm, tmp_path, factor=2.0), environ={}) as council:
        result = await council.ask("What is six times seven?")
    assert result.status == "complete"
    slow = result.answer("slow")
    assert slow is not None and slow.status == "failed" and slow.error is not None
    assert slow.error.reason == "late", slow.error
    assert "2x the median time of the answers already in" in slow.error.message
    assert slow.content is None, "it never answered"
    assert "slow" not in [e.member for e in result.ranking]
    assert [r.reviewer for r in result.reviews] == list(FAST), "a late member does not review"
    assert "members not waited for (straggler policy): slow" in result.degraded_reasons
    assert not any(reason.startswith("members failed") for reason in result.degraded_reasons)


async def test_a_late_answer_that_arrives_before_the_run_ends_is_stored_but_not_ranked(fake_llm, tmp_path):
    script_fast(fake_llm, chairman_latency_s=5.0)
    fake_llm.script("model-slow", Step(latency_s=1.5, reply=member("slow", 9).reply), member("slow", 9))
    async with Council(config(fake_llm, tmp_path, factor=2.0), environ={}) as council:
        result = await council.ask("What is six times seven?")
        stored = council.store.get(result.run_id) if council.store is not None else None
    slow = result.answer("slow")
    assert slow is not None and slow.error is not None and slow.error.reason == "late"
    assert slow.content == "slow says 42. quality=9", "kept: it arrived while the chairman was writing"
    assert "is kept here, unranked" in slow.error.message
    assert slow.usage.total_tokens > 0, "its tokens were paid for, so they count"
    assert "slow" not in [e.member for e in result.ranking]
    assert result.final_answer is not None and result.final_answer.by == "alpha"
    assert stored is not None and stored.answer("slow") == slow


async def test_without_the_policy_every_member_is_waited_for(fake_llm, tmp_path):
    script_fast(fake_llm)
    fake_llm.script("model-slow", Step(latency_s=0.5, reply=member("slow", 9).reply), member("slow", 9))
    async with Council(config(fake_llm, tmp_path, factor=None), environ={}) as council:
        result = await council.ask("What is six times seven?")
    assert [a.status for a in result.answers] == ["ok"] * 4
    assert result.ranking[0].member == "slow", "the best answer came last and was waited for"


async def test_a_slow_reviewer_is_cut_as_late_too(fake_llm, tmp_path):
    script_fast(fake_llm)
    fake_llm.script("model-slow", member("slow", 9), Step(hang=True))  # answers at once, then never reviews
    async with Council(config(fake_llm, tmp_path, factor=2.0), environ={}) as council:
        result = await council.ask("What is six times seven?")
    review = next(r for r in result.reviews if r.reviewer == "slow")
    assert review.status == "failed" and review.error is not None and review.error.reason == "late"
    assert "median time of the reviews already in" in review.error.message
    assert result.status == "complete" and {e.member for e in result.ranking} == {*FAST, "slow"}


async def test_the_quick_preset_ships_with_the_policy_and_a_preset_can_set_it(fake_llm, tmp_path):
    shipped = load_config(config_dir() / "council.yaml", {})
    assert shipped.councils["quick"].straggler_factor == 2.0 and shipped.stages.straggler_factor is None
    raw = config(fake_llm, tmp_path, factor=None).model_dump(mode="json")
    raw["councils"] = {"quick": {"straggler_factor": 3.0}}
    council = Council(CouncilConfig.model_validate(raw), environ={}, store=False)
    assert council.plan("Hello?", preset="quick").straggler_factor == 3.0
    assert council.plan("Hello?").straggler_factor is None


@pytest.mark.parametrize("factor", [0.5, 0, -1, "fast"])
def test_a_bad_factor_stops_the_config_naming_it(tmp_path, factor):
    path = tmp_path / "c.yaml"
    path.write_text("members:\n  - {name: a, provider: simulated, model: m}\n"
                    f"stages:\n  straggler_factor: {factor}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"stages\.straggler_factor"):
        load_config(path, {})
