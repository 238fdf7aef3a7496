"""Members behind one gateway share one host: the server's connection pool must not serialize its admitted runs.

Every member is on the one fake upstream (one host and port, as behind
OpenRouter or a LiteLLM proxy). The fake counts the requests it is
answering at once, so what is checked is how many calls reached it
together, never how long anything took.
"""

from __future__ import annotations

import asyncio

import openai

from council.config import CouncilConfig, TransportConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import API_KEY, MEMBERS, quality_judge, serve, server_config

RUNS = 25  # three members each: 75 calls at once, more than the 50 a host the pool used to allow
LATENCY_S = 1.0  # long enough for every run's answers to be asked while the first are still waiting


def script_slow(fake: FakeLLMServer) -> None:
    for name, quality in MEMBERS.items():
        fake.script(f"model-{name}", Step(latency_s=LATENCY_S,
                                          reply=council_member(f"{name} thinks 42. quality={quality}", quality_judge)))


async def ask_all_at_once(fake: FakeLLMServer, config: CouncilConfig) -> list[str]:
    """``RUNS`` council completions sent together through the real openai SDK; their answers."""
    runner, running = await serve(fake, config, Store(":memory:"), API_KEY)
    try:
        async with openai.AsyncOpenAI(base_url=running.base_url, api_key=API_KEY, max_retries=0,
                                      timeout=60) as sdk:
            completions = await asyncio.gather(*(
                sdk.chat.completions.create(model="council",
                                            messages=[{"role": "user", "content": f"Question {i}: six times seven?"}])
                for i in range(RUNS)))
    finally:
        await runner.cleanup()
        running.store.close()
    return [c.choices[0].message.content or "" for c in completions]


async def test_runs_the_server_admits_reach_one_host_together(fake_llm):
    script_slow(fake_llm)
    config = server_config(fake_llm, max_concurrent_runs=RUNS)
    assert config.transport.max_connections_per_host is None, "the limit is left to be derived"
    answers = await ask_all_at_once(fake_llm, config)
    assert len(answers) == RUNS and all(answers)
    # Every admitted run's three answers were asked together: past the old 50, never past the derived 75.
    assert 50 < fake_llm.most_in_flight <= RUNS * len(MEMBERS)
    assert fake_llm.in_flight == 0


async def test_an_explicit_per_host_limit_still_caps_the_calls_to_one_host(fake_llm):
    script_slow(fake_llm)
    config = server_config(fake_llm, max_concurrent_runs=RUNS)
    # 75 one-second calls through 20 connections take four waves a stage: the calls waiting for a connection
    # must not run into the 5 s deadlines the other server tests use (they did, on a busy CI machine).
    roomy = config.stages.model_copy(update={"stage_deadline_s": 60.0, "member_timeout_s": 60.0})
    config = config.model_copy(update={"transport": TransportConfig(max_connections_per_host=20), "stages": roomy})
    answers = await ask_all_at_once(fake_llm, config)
    assert len(answers) == RUNS and all(answers)
    assert fake_llm.most_in_flight <= 20
