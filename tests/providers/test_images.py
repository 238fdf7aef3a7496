"""Linked images fetched for the wire formats that carry bytes: size caps, redirects, the Python API."""

from __future__ import annotations

import base64

import pytest
from aiohttp import web

from council import Council
from council.config import CouncilConfig, TransportConfig
from council.errors import BadUpstreamRequestError
from council.providers.images import image_url_refusal
from council.testing.fake_llm import FakeLLMServer, Step
from council.transport.http import Transport
from council.types import MAX_IMAGE_BYTES, ChatMessage, ImageRef

PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
DATA_URL = f"data:image/png;base64,{PNG_B64}"


@pytest.fixture
async def lab_transport():
    """A transport that may fetch images on loopback (the fake upstream is on 127.0.0.1)."""
    async with Transport(TransportConfig(allow_private_image_urls=True)) as shared:
        yield shared


def looking(url: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content="Describe it.", images=(ImageRef(url=url),))]


async def test_an_image_larger_than_the_cap_is_refused_before_the_member_is_called(fake_llm, make_provider,
                                                                                     lab_transport):
    url = fake_llm.serve_image("huge.png", b"\x89PNG" + b"\0" * MAX_IMAGE_BYTES)
    provider = make_provider("anthropic", "claude-x")
    provider.transport = lab_transport
    with pytest.raises(BadUpstreamRequestError, match=f"more than {MAX_IMAGE_BYTES}"):
        await provider.complete(looking(url))
    assert [r.path for r in fake_llm.requests] == [], "no Messages API call was made"


async def test_a_redirect_is_not_followed(fake_llm, make_provider, lab_transport):
    # A redirect could lead a fetch that passed the address check to a private address.
    target = fake_llm.serve_image("pixel.png", base64.b64decode(PNG_B64))

    async def moved(request: web.Request) -> web.Response:
        raise web.HTTPFound(target)

    app = web.Application()
    app.router.add_get("/moved.png", moved)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        provider = make_provider("gemini", "gem-x")
        provider.transport = lab_transport
        with pytest.raises(BadUpstreamRequestError, match=r"redirects \(HTTP 302\); redirects are not followed"):
            await provider.complete(looking(f"http://127.0.0.1:{port}/moved.png"))
    finally:
        await runner.cleanup()
    assert fake_llm.requests == [], "neither the image nor the member was reached"


async def test_a_fetched_image_is_sent_once_per_url(fake_llm, make_provider, lab_transport):
    url = fake_llm.serve_image("pixel.png", base64.b64decode(PNG_B64))
    provider = make_provider("anthropic", "claude-x")
    provider.transport = lab_transport
    conversation = [*looking(url), ChatMessage(role="assistant", content="A pixel."), *looking(url)]
    await provider.complete(conversation)
    turns = fake_llm.requests[0].body["messages"]
    assert [block["source"]["data"] for turn in turns if isinstance(turn["content"], list)
            for block in turn["content"] if block["type"] == "image"] == [PNG_B64, PNG_B64]


async def test_the_python_api_takes_images_in_messages(fake_llm: FakeLLMServer):
    for name in ("seeing", "blind"):
        fake_llm.script(f"model-{name}", Step(reply=f"{name} answers"))
    config = CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                     "base_url": fake_llm.base_url("openai"), "vision": name == "seeing"}
                    for name in ("seeing", "blind")],
        "chairman": None, "retry": {"max_attempts": 1},
    })
    async with Council(config, store=False, environ={}) as council:
        result = await council.ask([{"role": "user", "content": "What is it?", "images": [{"url": DATA_URL}]}])
    seeing = fake_llm.requests_for("model-seeing")[0].body["messages"][-1]["content"]
    blind = fake_llm.requests_for("model-blind")[0].body["messages"][-1]["content"]
    assert seeing[1] == {"type": "image_url", "image_url": {"url": DATA_URL}}
    assert blind == "What is it?"
    assert result.degraded_reasons[0] == ("blind has vision: false and answered from the text alone "
                                          "(the images were not sent to it)")


# -- addresses refused on principle: one rule, when a request is read and when an image is fetched ---------

@pytest.mark.parametrize("url", [
    "http://127.0.0.1/a.png", "http://localhost:8000/a.png", "http://sub.localhost/a.png", "http://10.1.2.3/a.png",
    "http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://metadata/",
    "http://instance-data/latest/", "http://2130706433/", "http://0x7f.1/", "http://0x7F000001/",
    "http://017700000001/", "http://127.1/", "http://10.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:a9fe:a9fe]/", "http://[fe80::1%25eth0]/", "http://[::]/", "http://0/", "http://host.internal/",
    "http://nas.home.arpa/", "http://printer.local./", "http://intranet/",
])
def test_refused_on_principle(url):
    reason = image_url_refusal(url)
    assert reason is not None and "public" in reason


@pytest.mark.parametrize("url", ["https://example.com/cat.png", "http://8.8.8.8/a.png", "https://1.1.1.1/x",
                                 "https://[2606:4700:4700::1111]/x.png", "https://cdn.example.co.uk:8443/a.png",
                                 "https://123.example.com/a.png", "https://0x7f.example.com/a.png", DATA_URL])
def test_public_and_inline_images_pass(url):
    assert image_url_refusal(url) is None


@pytest.mark.parametrize("host", ["127.0.0.1", "2130706433", "0x7f.1"])
async def test_a_fetch_refuses_the_same_addresses(fake_llm, make_provider, host):
    # Built from Python (no HTTP request to refuse it first): the fetch itself checks, with the same rule.
    url = fake_llm.serve_image("pixel.png", base64.b64decode(PNG_B64)).replace("127.0.0.1", host)
    provider = make_provider("anthropic", "claude-x")
    with pytest.raises(BadUpstreamRequestError, match="public"):
        await provider.complete(looking(url))
    assert fake_llm.images_served == [] and fake_llm.requests == []


async def test_a_fetched_image_whose_bytes_are_not_its_type_fails_the_member(fake_llm, make_provider, lab_transport):
    url = fake_llm.serve_image("renamed.png", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32)
    provider = make_provider("gemini", "gem-x")
    provider.transport = lab_transport
    with pytest.raises(BadUpstreamRequestError,
                       match=r"declared image/png but is not a PNG image \(its bytes are a JPEG"):
        await provider.complete(looking(url))
    assert fake_llm.requests == [], "the member was not sent it"
