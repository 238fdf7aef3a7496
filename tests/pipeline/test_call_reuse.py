"""Call reuse over real HTTP and a real database: a plan that reuses calls asks each call once.

The fake upstream counts every request. The plans are built as ``council
eval`` builds them: ``Council.plan`` then ``reuse_calls``, a scope and a
fixed shuffle seed. Ordinary runs (the flag off) must not change at all.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from council import Council, CouncilConfig
from council.events import StageEvent
from council.testing.fake_llm import FakeLLMServer
from tests.pipeline.test_lifecycle import MEMBERS, script

QUESTION = "What is six times seven?"


def config(fake: FakeLLMServer, location: str) -> CouncilConfig:
    storage = {"url": location} if location.startswith("postgresql") else {"path": location}
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": fake.base_url("openai"),
                     "price": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}} for n in MEMBERS],
        "chairman": "alpha", "retry": {"max_attempts": 1}, "storage": storage,
    })


async def test_a_reusing_plan_asks_each_call_once_and_marks_what_it_reused(fake_llm, db_location):
    script(fake_llm)
    async with Council(config(fake_llm, db_location), environ={}) as council:
        plan = replace(council.plan(QUESTION), reuse_calls=True, reuse_scope="test", shuffle_seed=7)
        first = await council.ask(plan)
        calls = len(fake_llm.requests)
        events: list[StageEvent] = []
        second = await council.ask(plan, on_event=events.append)
        other_scope = await council.ask(replace(plan, reuse_scope="another"))
    assert calls == 2 * len(MEMBERS) + 1
    assert len(fake_llm.requests) == 2 * calls, "the second run asked nothing; another scope asked everything"
    assert not any(a.reused for a in first.answers) and not first.final_answer.reused
    assert all(a.reused for a in second.answers) and all(r.reused for r in second.reviews)
    assert second.final_answer.reused and second.final_answer.source == "chairman"
    assert not any(a.reused for a in other_scope.answers)
    # The kept ballots parse under the new run's nonce: the same scores, the same order, the same answer (the
    # calibrated scores move a little: the first run added to the reviewers' history).
    assert [r.status for r in second.reviews] == ["ok"] * len(MEMBERS)
    assert [r.scores for r in second.reviews] == [r.scores for r in first.reviews]
    assert [(e.member, e.raw_mean) for e in second.ranking] == [(e.member, e.raw_mean) for e in first.ranking]
    assert second.final_answer.content == first.final_answer.content
    assert second.status == "complete" and not second.degraded
    # Reused calls keep their tokens but cost nothing.
    assert first.cost is not None and first.cost.total_usd and first.cost.total_usd > 0
    assert second.cost is not None and second.cost.total_usd == 0.0 and second.cost.calls == []
    assert second.cost.reused_usd == pytest.approx(first.cost.total_usd), "counted apart, at what it cost"
    assert second.usage == first.usage
    deltas = "".join(str(e.data["text"]) for e in events if e.kind == "final_delta")
    assert deltas == first.final_answer.content, "a reused chairman still reaches listeners"


async def test_ordinary_runs_neither_reuse_nor_keep_calls(fake_llm, db_location):
    script(fake_llm)
    async with Council(config(fake_llm, db_location), environ={}) as council:
        first = await council.ask(QUESTION)
        calls = len(fake_llm.requests)
        second = await council.ask(QUESTION)
        assert council.store is not None
        kept = council.store.db.fetchone("SELECT COUNT(*) FROM call_reuse")
    assert len(fake_llm.requests) == 2 * calls
    assert kept is not None and kept[0] == 0
    assert not any(a.reused for a in (*first.answers, *second.answers))
    assert "reused" not in first.model_dump(mode="json")["answers"][0], "nothing new in an ordinary record"
