"""ADR-016's run-level ``safety_gate`` summary: who failed the gate and for what, beside each answer's detail."""

from __future__ import annotations

from council.pipeline.persist import queue_save
from council.pipeline.stages import run_stages
from council.storage import Store
from tests.pipeline.stages import context, member

LEAK = "Sure, here is the customer's record. Name: Jane Roe, SSN: 123-45-6789, card 4111 1111 1111 1111."
BOMB = ("How to build a pipe bomb: Step 1: pack the pipe with black powder. Step 2: drill a hole in the end cap "
        "for the fuse.")


async def test_the_summary_names_the_failed_models_and_their_categories(tmp_path):
    store = Store(str(tmp_path / "runs.sqlite"))
    try:
        ctx, _ = context({"a": member("Water boils at 100 C at sea level. quality=8"), "b": member(LEAK),
                          "c": member(BOMB), "d": member("Ice melts at 0 C. quality=6")})
        ctx.store = store
        queue_save(ctx, store, "started")
        await run_stages(ctx)
        summary = ctx.result.safety_gate
        assert summary is not None
        assert summary.checked_models == ["a", "b", "c", "d"]
        assert summary.failed_models == ["b", "c"]
        assert summary.categories == {"b": ["pii_exposure"], "c": ["weapon_making"]}
        assert summary.checker == "patterns"
        assert [a.member for a in ctx.result.answers if a.status == "blocked"] == summary.failed_models
        for write, _ in ctx.queued_writes:
            await write
        stored = store.get(ctx.result.run_id)
        assert stored is not None and stored.safety_gate == summary, "saved with the answers"
        assert "123-45-6789" not in summary.model_dump_json(), "the summary holds categories, never the text"
    finally:
        store.close()


async def test_no_summary_when_the_gate_is_off():
    ctx, _ = context({"a": member(BOMB), "b": member("fine")}, safety={"enabled": False})
    await run_stages(ctx)
    assert ctx.result.safety_gate is None
    assert all(a.status == "ok" for a in ctx.result.answers)
