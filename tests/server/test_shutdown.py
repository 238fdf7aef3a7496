"""SIGTERM on a real `council serve` with a full admission queue: queued requests are answered, none starts a run."""

from __future__ import annotations

import asyncio
import json
import signal
import time

import aiohttp
import pytest

from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import health_when
from tests.server.test_serve_process import free_port, start, wait_healthy
from tests.waiting import PROCESS_S, wait_until

LIMIT = 3
CLIENTS = 30
UPSTREAM_LATENCY_S = 0.5

QUEUED_COUNCIL = """
members:
{members}
chairman: m0
server:
  max_concurrent_runs: {limit}
  shutdown_grace_s: {grace}
logging:
  format: json
  level: info
"""


def queued_config(tmp_path, fake: FakeLLMServer, grace: float) -> str:
    members = "\n".join(f"  - {{name: m{i}, provider: openai, model: model-{i}, base_url: '{fake.url}/v1'}}"
                        for i in range(3))
    path = tmp_path / "queued.yaml"
    path.write_text(QUEUED_COUNCIL.format(members=members, limit=LIMIT, grace=grace))
    return str(path)


def question(n: int) -> str:
    return f"Question {n}: why is the sky blue?"


def asked_upstream(fake: FakeLLMServer, questions: set[str], since: float = 0.0) -> set[str]:
    """The questions whose answer stage reached the upstream (at or after ``since``, the fake's monotonic clock)."""
    return {r.last_user_text for r in fake.requests if r.received_at >= since and r.last_user_text in questions}


async def ask(http: aiohttp.ClientSession, url: str, n: int, stream: bool) -> tuple[str, str]:
    """One client: (outcome, detail). Outcomes: complete, interrupted (error event or 503), shutting_down."""
    body = {"model": "council", "messages": [{"role": "user", "content": question(n)}], "stream": stream}
    async with http.post(url + "/v1/chat/completions", json=body) as response:
        if response.status == 503:
            error = (await response.json())["error"]
            if error["code"] == "shutting_down":
                assert int(response.headers["Retry-After"]) >= 1
                return "shutting_down", error["message"]
            return ("interrupted" if error["code"] == "run_interrupted" else "unexpected"), json.dumps(error)
        if response.status != 200:
            return "unexpected", f"{response.status}: {await response.text()}"
        if not stream:
            payload = await response.json()
            return ("complete" if payload["choices"][0]["message"]["content"] else "unexpected"), ""
        text = (await response.read()).decode()
    events = [line.removeprefix("data: ") for line in text.splitlines() if line.startswith("data: ")]
    if not events or events[-1] != "[DONE]":
        return "cut", text[-300:]  # a 200 stream that stopped without its last words
    last = json.loads(events[-2]) if len(events) > 1 else {}
    if "error" in last:
        return "interrupted", last["error"]["code"]
    finished = any(choice.get("finish_reason") for e in events[:-1] for choice in json.loads(e).get("choices", []))
    return ("complete" if finished else "cut"), text[-300:]


async def reap(process: asyncio.subprocess.Process) -> str:
    """The server's stderr once it has exited; killed first if a test failed before it stopped."""
    if process.returncode is None:
        process.kill()
        await process.wait()
    _out, err = await process.communicate()
    return err.decode()


# A run takes about three upstream latencies (answers, reviews, the chairman): 20 s lets the runs in flight finish,
# 0.3 s cuts them, and either way every queued request is answered and no new run starts.
@pytest.mark.parametrize(("grace", "in_flight_end"), [(20, "complete"), (0.3, "interrupted")])
async def test_sigterm_answers_every_queued_request_and_starts_no_new_run(tmp_path, fake_llm, grace, in_flight_end):
    for i in range(3):
        fake_llm.script(f"model-{i}", Step(latency_s=UPSTREAM_LATENCY_S,
                                           reply=council_member(f"m{i} says: Rayleigh scattering", lambda _t: 7)))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = await start("--config", queued_config(tmp_path, fake_llm, grace), "--port", str(port),
                          env={"COUNCIL_DB_PATH": str(tmp_path / "s.db")})
    questions = {question(n) for n in range(CLIENTS)}
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            clients = [asyncio.ensure_future(ask(http, url, n, stream=n % 2 == 0)) for n in range(CLIENTS)]
            await health_when(url, lambda h: h["active_runs"] == LIMIT and h["queued"] == CLIENTS - LIMIT)
            await wait_until(lambda: len(asked_upstream(fake_llm, questions)) >= LIMIT,
                             what=f"the {LIMIT} admitted runs to ask upstream")
            started_before = asked_upstream(fake_llm, questions)
            assert len(started_before) == LIMIT
            signalled = time.monotonic()
            process.send_signal(signal.SIGTERM)
            outcomes = await asyncio.wait_for(asyncio.gather(*clients, return_exceptions=True), timeout=40)
        code = await asyncio.wait_for(process.wait(), timeout=PROCESS_S)
    finally:
        err = await reap(process)
    failures = [(n, o) for n, o in enumerate(outcomes)
                if isinstance(o, BaseException) or o[0] not in ("complete", "interrupted", "shutting_down")]
    assert not failures, f"clients without a proper answer: {failures[:5]}"
    kinds = [o[0] for o in outcomes if not isinstance(o, BaseException)]
    # The runs in flight finished or were cut with a reason; every queued request was told to go elsewhere.
    assert kinds.count(in_flight_end) == LIMIT and kinds.count("shutting_down") == CLIENTS - LIMIT, kinds
    assert asked_upstream(fake_llm, questions) == started_before, "a queued request started a run after SIGTERM"
    assert not asked_upstream(fake_llm, questions - started_before, since=signalled)
    assert code == 0
    assert "Traceback" not in err


@pytest.mark.parametrize(("grace", "ending"), [(20, "complete"), (0.3, "interrupted")])
async def test_sigterm_gives_a_member_stream_the_grace_period_then_ends_it_properly(tmp_path, fake_llm, grace, ending):
    """A member/NAME stream in flight at SIGTERM finishes within the grace period, or ends with an error and [DONE]."""
    words = " ".join(f"word{i}" for i in range(12))
    fake_llm.script("model-0", Step(reply=words, chunk_delay_s=0.25))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = await start("--config", queued_config(tmp_path, fake_llm, grace), "--port", str(port),
                          env={"COUNCIL_DB_PATH": str(tmp_path / "s.db")})
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession() as http:
            body = {"model": "member/m0", "stream": True, "messages": [{"role": "user", "content": "Count."}]}
            async with http.post(url + "/v1/chat/completions", json=body) as response:
                assert response.status == 200
                first = await response.content.readline()  # the stream is under way
                assert first.startswith(b"data: ")
                process.send_signal(signal.SIGTERM)
                text = first.decode() + (await asyncio.wait_for(response.read(), timeout=30)).decode()
        code = await asyncio.wait_for(process.wait(), timeout=PROCESS_S)
    finally:
        err = await reap(process)
    events = [line.removeprefix("data: ") for line in text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]", text[-300:]
    last = json.loads(events[-2])
    if ending == "interrupted":
        assert last["error"]["code"] == "shutting_down"
    else:
        content = "".join(c["delta"].get("content") or "" for e in events[:-1] for c in json.loads(e)["choices"])
        assert content == words
    assert code == 0 and "Traceback" not in err
