"""An upstream's redirect is never followed, and an upstream's body never reaches a client whole.

A member upstream (or a proxy ``base_url``) answering ``302 Location:
http://127.0.0.1:…/latest/meta-data`` must not make Council fetch that
internal URL: the second loopback server here records every hit.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from council.errors import ProtocolError, ProviderError
from council.testing.fake_llm import FakeLLMServer, Step
from council.types import ChatMessage

QUESTION = [ChatMessage(role="user", content="Name a prime number.")]
PROVIDERS = ["openai", "anthropic", "gemini"]
INSTANCE_SECRET = b"AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY role=admin"


@pytest.fixture
async def internal() -> AsyncIterator[FakeLLMServer]:
    """A second loopback server standing for an internal service (a cloud metadata endpoint)."""
    async with FakeLLMServer() as server:
        yield server


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_is_a_protocol_error_and_its_target_is_never_fetched(fake_llm, internal, make_provider,
                                                                              provider, status):
    target = internal.serve_image("meta-data", INSTANCE_SECRET, content_type="text/plain")
    fake_llm.script("m", Step(status=status, body=b"", headers={"Location": target}))
    with pytest.raises(ProtocolError) as caught:
        await make_provider(provider, "m").complete(QUESTION)
    message = str(caught.value)
    assert caught.value.status == status and f"HTTP {status}" in message
    assert f"127.0.0.1:{internal.port}" in message  # the Location's host, and nothing more of it
    assert "meta-data" not in message and "/_fake" not in message and "AKIA" not in message
    assert internal.images_served == []
    assert len(fake_llm.requests_for("m")) == 1, "a redirect is not retried"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_redirected_stream_is_refused_the_same_way(fake_llm, internal, make_provider, provider):
    target = internal.serve_image("meta-data", INSTANCE_SECRET, content_type="text/plain")
    fake_llm.script("m", Step(status=302, body=b"", headers={"Location": target}))
    with pytest.raises(ProtocolError, match=f"127.0.0.1:{internal.port}"):
        await make_provider(provider, "m").stream(QUESTION).collect()
    assert internal.images_served == []
    assert len(fake_llm.requests_for("m")) == 1


async def test_a_relative_redirect_names_the_upstreams_own_host(fake_llm, make_provider):
    fake_llm.script("m", Step(status=307, body=b"", headers={"Location": "/latest/meta-data/iam?x=1"}))
    with pytest.raises(ProtocolError) as caught:
        await make_provider("openai", "m").complete(QUESTION)
    assert f"127.0.0.1:{fake_llm.port}" in str(caught.value) and "latest" not in str(caught.value)


async def test_a_redirect_without_a_location_says_so(fake_llm, make_provider):
    fake_llm.script("m", Step(status=302, body=b"moved"))
    with pytest.raises(ProtocolError, match="no Location"):
        await make_provider("openai", "m").complete(QUESTION)


# -- bodies are summarised, never echoed -------------------------------------------------------------

PASSWD = b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


@pytest.mark.parametrize("status", [200, 404, 500])
async def test_a_text_body_is_summarised_by_type_length_and_first_line(fake_llm, make_provider, status):
    fake_llm.script("m", Step(status=status, body=PASSWD, content_type="text/plain"))
    with pytest.raises(ProviderError) as caught:
        await make_provider("openai", "m", retry=_once()).complete(QUESTION)
    message = str(caught.value)
    assert "text/plain" in message and f"{len(PASSWD)} bytes" in message
    assert "root:x:0:0" in message and "daemon" not in message


@pytest.mark.parametrize("body", [
    b"upstream refused the key sk-proj-Zq81mNx0TbW4kLp9RvA2cDeF7gHjK3sT for this project",
    b"request failed (api_key=hunter2hunter2) at the gateway",
    b"Authorization: Bearer 0f3a9c2e4b7d41a8b5c6d7e8f9a0b1c2 rejected",
    b'{"error": {"message": "Incorrect API key provided: sk-live-4eC39HqLyjWDarjtT1zdp7dc. Find yours at ..."}}',
    b'{"error": {"message": "quota exceeded\\ntoken: ghp_R4nd0mT0k3nV4lu3Abcdefghij1234567890"}}',
], ids=["openai-key", "key-parameter", "bearer-hex", "json-message", "json-second-line"])
async def test_what_looks_like_a_secret_is_stripped(fake_llm, make_provider, body):
    fake_llm.script("m", Step(status=401, body=body,
                              content_type="application/json" if body.startswith(b"{") else "text/plain"))
    with pytest.raises(ProviderError) as caught:
        await make_provider("openai", "m").complete(QUESTION)
    message = str(caught.value)
    for secret in ("Zq81mNx0TbW4kLp9RvA2cDeF7gHjK3sT", "hunter2hunter2", "0f3a9c2e4b7d41a8b5c6d7e8f9a0b1c2",
                   "4eC39HqLyjWDarjtT1zdp7dc", "ghp_R4nd0mT0k3nV4lu3"):
        assert secret not in message
    assert "HTTP 401" in message


async def test_an_api_error_message_keeps_its_words(fake_llm, make_provider):
    body = {"error": {"message": "The model `gpt-9-turbo-2025-04-01` does not exist or you do not have access to it."}}
    fake_llm.script("m", Step(status=404, body=json.dumps(body).encode()))
    with pytest.raises(ProviderError) as caught:
        await make_provider("openai", "m").complete(QUESTION)
    assert body["error"]["message"] in str(caught.value)


def _once():
    from council.config import RetryPolicy

    return RetryPolicy(max_attempts=1)
