"""The Python API under concurrency and faults, used the way the README shows: imports from `council` only."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from council import Council, CouncilConfig, CouncilResult
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from council.transport.http import Transport
from tests.waiting import TIMEOUT_S, wait_until

MEMBERS = ("alpha", "beta", "gamma")


def quality_judge(text: str) -> int:
    marker = text.rsplit("quality=", 1)
    return int(marker[1][:1]) if len(marker) == 2 and marker[1][:1].isdigit() else 1


def council_config(fake: FakeLLMServer, tmp_path, chairman: str | None = "alpha", **extra: object) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": fake.base_url("openai")}
                    for n in MEMBERS],
        "chairman": chairman,
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "storage": {"path": str(tmp_path / "council.db")},
        **extra,
    })


def script(fake: FakeLLMServer, latency_s: float = 0.0) -> None:
    for quality, name in enumerate(MEMBERS, start=5):
        fake.script(f"model-{name}", Step(latency_s=latency_s,
                                          reply=council_member(f"{name} says 42. quality={quality}", quality_judge)))


def unclosed_sessions(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "Unclosed" in str(w.message)]


async def test_200_concurrent_bare_asks_all_complete_and_leave_no_session(fake_llm, tmp_path):
    script(fake_llm)
    # 200 runs' writes on one SQLite file: on a loaded machine they take longer than the default 2 s a run waits
    # for its database, and the runs would say "not stored yet". Sessions are this test's subject, not that bound.
    storage = {"path": str(tmp_path / "council.db"), "critical_wait_s": TIMEOUT_S}
    council = Council(council_config(fake_llm, tmp_path, storage=storage), environ={})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = await asyncio.gather(*(council.ask(f"Question {i}: what is 6 x 7?") for i in range(200)))
        gc.collect()
    assert all(isinstance(r, CouncilResult) for r in results)
    assert [r.status for r in results] == ["complete"] * 200
    failed = [(r.run_id, a.member, a.error) for r in results for a in r.answers if a.status != "ok"]
    assert failed == []
    assert not any(r.degraded for r in results), {reason for r in results for reason in r.degraded_reasons}
    assert len({r.run_id for r in results}) == 200
    assert unclosed_sessions(caught) == []
    # One session served all 200 and was closed by the last of them; the council still works afterwards.
    again = await council.ask("One more?")
    assert again.status == "complete"
    await council.aclose()


async def test_bare_asks_in_waves_reuse_and_close_cleanly(fake_llm, tmp_path):
    script(fake_llm, latency_s=0.05)
    # 40 runs' writes on one SQLite file: as above, the database's wait is not this test's subject (on a loaded
    # machine the default 2 s ran out and runs were degraded).
    storage = {"path": str(tmp_path / "council.db"), "critical_wait_s": TIMEOUT_S}
    council = Council(council_config(fake_llm, tmp_path, storage=storage), environ={})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = asyncio.gather(*(council.ask(f"first {i}") for i in range(20)))
        await wait_until(lambda: bool(fake_llm.requests), what="the first wave to reach the upstream")
        assert not first.done()
        second = asyncio.gather(*(council.ask(f"second {i}") for i in range(20)))  # joins while the first run
        results = [*(await first), *(await second)]
        gc.collect()
    assert [r.status for r in results] == ["complete"] * 40
    assert not any(r.degraded for r in results), {reason for r in results for reason in r.degraded_reasons}
    assert unclosed_sessions(caught) == []
    await council.aclose()


async def test_closing_the_pool_under_running_calls_gives_typed_failures_never_cancelled_error(fake_llm, tmp_path):
    script(fake_llm, latency_s=0.5)
    council = Council(council_config(fake_llm, tmp_path, transport={"max_connections_per_host": 4}), environ={})
    async with council:
        calls = [asyncio.ensure_future(council.ask(f"q{i}")) for i in range(12)]
        # Four calls hold the pool's connections upstream, the rest wait for one.
        await wait_until(lambda: len(fake_llm.requests) >= 4, what="four calls to hold the pool's connections")
        await council.aclose()  # the pool closes under all of them
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
    assert not [o for o in outcomes if isinstance(o, BaseException)], outcomes
    for result in outcomes:
        assert result.status == "failed" and "quorum not met" in result.error
        reasons = {a.error.message for a in result.answers if a.error is not None}
        assert reasons and all(("closed" in m) or ("cancelled from below" in m) for m in reasons), reasons


async def test_a_cancelled_caller_still_cancels_its_run_promptly(fake_llm, tmp_path):
    for name in MEMBERS:
        fake_llm.script(f"model-{name}", Step(hang=True))  # no member ever answers: only the cancel ends the run
    async with Council(council_config(fake_llm, tmp_path), environ={}) as council:
        task = asyncio.ensure_future(council.ask("Will you wait?"))
        await wait_until(lambda: len(fake_llm.requests) >= len(MEMBERS), what="the run to ask its members")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=TIMEOUT_S)  # the bound is against a hang, not a measurement
        (stored,) = council.store.list_runs()
        assert stored.status == "interrupted"


class ChairmanBugTransport(Transport):
    """A transport whose streamed calls (only the chairman streams) hit a bug: an in-process RuntimeError."""

    async def open_stream(self, request, endpoint):
        raise RuntimeError("a bug on the chairman's code path")


async def test_a_chairman_that_raises_falls_back_to_the_top_answer_and_the_run_is_stored(fake_llm, tmp_path):
    script(fake_llm)
    transport = ChairmanBugTransport()
    try:
        async with Council(council_config(fake_llm, tmp_path), environ={}, transport=transport) as council:
            result = await council.ask("What is 6 x 7?")
            stored = council.store.get(result.run_id)
    finally:
        await transport.aclose()
    assert result.status == "complete"
    final = result.final_answer
    assert final.fallback and final.by == result.ranking[0].member and final.content
    assert "RuntimeError" in final.fallback_reason
    assert any("chairman fallback" in reason for reason in result.degraded_reasons)
    assert stored is not None and stored.status == "complete" and stored.final_answer == final
