"""A member upstream that redirects to an internal address: the client learns the status and host, never the body.

Before, Council followed the redirect (three times, with retries) and the
client's error carried what the internal URL answered: a read-SSRF for
anyone controlling an upstream or a proxy ``base_url``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import openai
import pytest

from council.testing.fake_llm import FakeLLMServer, Step
from tests.server.conftest import API_KEY, RunningServer, start_server

SECRET = b"AccessKeyId=ASIAEXAMPLEEXAMPLE12 Token=IQoJb3JpZ2luX2VjEXAMPLETOKEN"
WEATHER_TOOL = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}


@pytest.fixture
async def internal() -> AsyncIterator[FakeLLMServer]:
    async with FakeLLMServer() as server:
        yield server


@pytest.fixture
async def redirecting(fake_llm: FakeLLMServer, internal: FakeLLMServer) -> AsyncIterator[RunningServer]:
    """Every member's upstream answers 302 to the internal server's credentials page."""
    target = internal.serve_image("latest-meta-data-iam", SECRET, content_type="text/plain")
    for name in ("alpha", "beta", "gamma"):
        fake_llm.script(f"model-{name}", Step(status=302, body=b"", headers={"Location": target}))
    runner, running = await start_server(fake_llm)
    yield running
    await runner.cleanup()
    running.store.close()


def sdk(server: RunningServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)


def assert_told_only_the_host(text: str, internal: FakeLLMServer) -> None:
    assert "302" in text and f"127.0.0.1:{internal.port}" in text
    assert "meta-data" not in text and "ASIA" not in text and "IQoJ" not in text


@pytest.mark.parametrize("body", [{}, {"tools": [WEATHER_TOOL]}], ids=["plain", "relayed-tools"])
async def test_a_member_call_reports_the_redirect_and_fetches_nothing(redirecting, internal, body):
    async with sdk(redirecting) as client:
        with pytest.raises(openai.APIStatusError) as caught:
            await client.chat.completions.create(model="member/alpha", messages=[{"role": "user", "content": "hi"}],
                                                 **body)
    assert caught.value.status_code == 502
    assert caught.value.body["code"] == "protocol"
    assert_told_only_the_host(caught.value.body["message"], internal)
    assert internal.images_served == []
    assert len(redirecting.fake.requests_for("model-alpha")) == 1


async def test_a_council_run_reports_the_redirects_and_fetches_nothing(redirecting, internal):
    async with sdk(redirecting) as client:
        with pytest.raises(openai.APIStatusError) as caught:
            await client.chat.completions.create(model="council", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 502
    message = caught.value.body["message"]
    assert "meta-data" not in message and "ASIA" not in message and "IQoJ" not in message
    assert internal.images_served == []
    stored = redirecting.store.get(caught.value.response.headers["x-council-run-id"])
    assert stored is not None
    failures = [answer.error for answer in stored.answers if answer.error is not None]
    assert len(failures) == 3 and {f.reason for f in failures} == {"protocol"}
    assert all(f.status == 302 and f"127.0.0.1:{internal.port}" in f.message for f in failures)
