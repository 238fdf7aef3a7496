"""One HTTP session for all of a council's questions: bare calls reuse connections, and nothing is left open.

Used as the docs show: ``await council.ask(...)`` one question after another
without ``async with``, ``asyncio.run`` per question in a script, and a
council dropped without ``aclose()``. The fake upstream tells TCP
connections apart by the client's port.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import textwrap
import warnings

from council import Council
from tests.pipeline.test_lifecycle import MEMBERS, council_config, script, unclosed_sessions

QUESTIONS = 12


async def test_bare_asks_one_after_another_reuse_the_connections(fake_llm, tmp_path):
    script(fake_llm)
    council = Council(council_config(fake_llm, tmp_path), environ={})
    try:
        for i in range(QUESTIONS):
            assert (await council.ask(f"Question {i}?")).status == "complete"
        calls = len(fake_llm.requests)
        assert calls == QUESTIONS * (2 * len(MEMBERS) + 1), "answers, reviews and the chairman, every question"
        # Calls in flight at once are at most one per member: that many connections serve every question.
        assert fake_llm.connections_seen <= len(MEMBERS), f"{fake_llm.connections_seen} connections for {calls} calls"
    finally:
        await council.aclose()


async def test_bare_asks_and_async_with_open_the_same_connections(fake_llm, tmp_path):
    script(fake_llm)
    async with Council(council_config(fake_llm, tmp_path / "a"), environ={}) as council:
        for i in range(QUESTIONS):
            await council.ask(f"Question {i}?")
    inside = fake_llm.connections_seen
    fake_llm.requests.clear()
    council = Council(council_config(fake_llm, tmp_path / "b"), environ={})
    for i in range(QUESTIONS):
        await council.ask(f"Question {i}?")
    await council.aclose()
    assert fake_llm.connections_seen == inside


async def test_aclose_closes_the_session_and_a_later_ask_opens_a_new_one(fake_llm, tmp_path):
    script(fake_llm)
    council = Council(council_config(fake_llm, tmp_path), environ={})
    await council.ask("First?")
    first = fake_llm.connections_seen
    await council.aclose()
    assert (await council.ask("Again?")).status == "complete"
    await council.aclose()
    assert fake_llm.connections_seen > first, "the closed session's connections were not reused"


async def test_a_council_dropped_without_aclose_closes_its_session_quietly(fake_llm, tmp_path):
    script(fake_llm)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        council = Council(council_config(fake_llm, tmp_path), environ={}, store=False)
        assert (await council.ask("Hello?")).status == "complete"
        del council
        gc.collect()
        for _ in range(5):  # the loop runs the session's close, scheduled when the council was collected
            await asyncio.sleep(0)
        gc.collect()
    assert unclosed_sessions(caught) == []


async def test_asyncio_run_per_question_in_a_script_leaves_nothing_open(fake_llm, tmp_path):
    script(fake_llm)
    program = textwrap.dedent(f"""
        import asyncio, gc, warnings
        warnings.simplefilter("always")
        from council import Council, CouncilConfig
        config = CouncilConfig.model_validate({{
            "members": [{{"name": n, "provider": "openai", "model": f"model-{{n}}",
                          "base_url": {fake_llm.base_url("openai")!r}}} for n in {list(MEMBERS)!r}],
            "chairman": "alpha", "storage": {{"path": {str(tmp_path / "runs.db")!r}}}}})
        council = Council(config, environ={{}})
        for question in ("Why is the sky blue?", "Why is grass green?"):
            print(asyncio.run(council.ask(question)).status)
        del council
        gc.collect()
    """)
    process = await asyncio.create_subprocess_exec(sys.executable, "-X", "dev", "-c", program,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    assert out.decode().split() == ["complete", "complete"]
    assert "Unclosed" not in err.decode() and "Exception ignored" not in err.decode(), err.decode()
