"""Caps on what one request may ask every member to carry: stop sequences, messages, image bytes.

Before, ``stop`` with 1,000 entries, 30,000 messages and a ``data:image/png``
whose bytes were not a PNG were all accepted and forwarded to every member.
"""

from __future__ import annotations

import base64
import io
import json

import aiohttp
import pytest

from council.server.schema import MAX_MESSAGES, MAX_STOP_LENGTH, MAX_STOP_SEQUENCES
from tests.server.conftest import API_KEY, RunningServer, script, start_server

HEADERS = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
ASK = [{"role": "user", "content": "hi"}]
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
                       "kgAAAABJRU5ErkJggg==")
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 16
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + b"\x00" * 16
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00" + b"\x00" * 16
BYTES = {"image/png": PNG, "image/jpeg": JPEG, "image/gif": GIF, "image/webp": WEBP}


@pytest.fixture
async def roomy(fake_llm):
    """A server that takes bodies of up to 4 MiB, so a cap is what refuses a long request, not the body size."""
    script(fake_llm)
    runner, running = await start_server(fake_llm, max_body_bytes=4 * 1024 * 1024)
    yield running
    await runner.cleanup()
    running.store.close()


async def post(server: RunningServer, body: dict, path: str = "/v1/chat/completions") -> tuple[int, dict]:
    async with aiohttp.ClientSession() as http, http.post(server.url + path, data=io.BytesIO(json.dumps(body).encode()),
                                                          headers=HEADERS) as response:
        return response.status, await response.json()


def data_url(kind: str, data: bytes) -> str:
    return f"data:{kind};base64,{base64.b64encode(data).decode()}"


def with_image(url: str) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": "what is it?"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


# -- stop ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("stop", "says"), [
    (["x"] * 1000, "at most 4 stop sequences"),
    (["a", "b", "c", "d", "e"], "at most 4 stop sequences"),
    ("s" * (MAX_STOP_LENGTH + 1), f"at most {MAX_STOP_LENGTH} characters"),
    (["ok", "s" * 5000], "stop[1] has 5000"),
])
@pytest.mark.parametrize("model", ["council", "member/alpha"])
async def test_too_many_or_too_long_stop_sequences_are_a_400(roomy, stop, says, model):
    status, body = await post(roomy, {"model": model, "messages": ASK, "stop": stop})
    assert status == 400
    assert body["error"]["param"] == "stop" and says in body["error"]["message"]
    assert roomy.fake.requests == []


async def test_four_stop_sequences_of_the_longest_length_are_forwarded(roomy):
    stop = ["END", "\n\n", "###", "s" * MAX_STOP_LENGTH]
    assert len(stop) == MAX_STOP_SEQUENCES
    status, body = await post(roomy, {"model": "member/alpha", "messages": ASK, "stop": stop})
    assert status == 200, body
    assert roomy.fake.requests_for("model-alpha")[0].body["stop"] == stop


# -- messages -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("count", [30_000, MAX_MESSAGES + 1])
async def test_too_many_messages_are_a_400(roomy, count):
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": "m"} for i in range(count - 1)] + ASK
    status, body = await post(roomy, {"model": "member/alpha", "messages": messages})
    assert status == 400
    assert body["error"]["param"] == "messages"
    assert f"at most {MAX_MESSAGES} messages" in body["error"]["message"] and str(count) in body["error"]["message"]
    assert roomy.fake.requests == []


async def test_the_most_messages_allowed_are_forwarded(roomy):
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": "m"} for i in range(MAX_MESSAGES - 1)]
    status, body = await post(roomy, {"model": "member/alpha", "messages": [*messages, *ASK]})
    assert status == 200, body
    assert len(roomy.fake.requests_for("model-alpha")[0].body["messages"]) == MAX_MESSAGES


# -- image bytes --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("declared", "actual", "says"), [
    ("image/png", b"this is not an image at all", "not a PNG image"),
    ("image/png", JPEG, "not a PNG image (its bytes are a JPEG image)"),
    ("image/jpeg", PNG, "not a JPEG image (its bytes are a PNG image)"),
    ("image/gif", WEBP, "not a GIF image (its bytes are a WebP image)"),
    ("image/webp", b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 16, "not a WebP image"),
    ("image/png", b"", "not a PNG image"),
])
@pytest.mark.parametrize("model", ["council", "member/alpha"])
async def test_a_data_url_whose_bytes_are_not_its_type_is_a_400(roomy, declared, actual, says, model):
    status, body = await post(roomy, {"model": model, "messages": with_image(data_url(declared, actual))})
    assert status == 400
    assert body["error"]["code"] == "invalid_image"
    assert body["error"]["param"] == "messages[0].content[1].image_url.url"
    assert says in body["error"]["message"]
    assert roomy.fake.requests == []


@pytest.mark.parametrize("declared", sorted(BYTES))
async def test_each_supported_type_with_its_own_bytes_is_forwarded(roomy, declared):
    url = data_url(declared, BYTES[declared])
    status, body = await post(roomy, {"model": "member/alpha", "messages": with_image(url)})
    assert status == 200, body
    assert roomy.fake.requests_for("model-alpha")[0].body["messages"][-1]["content"][1]["image_url"]["url"] == url


async def test_the_page_refuses_an_image_whose_bytes_are_not_its_type(roomy):
    status, conversation = await post(roomy, {}, "/api/conversations")
    assert status == 201
    status, body = await post(roomy, {"content": "what is it?", "images": [data_url("image/png", PNG),
                                                                           data_url("image/png", JPEG)]},
                              f"/api/conversations/{conversation['id']}/messages")
    assert status == 400
    assert body["error"]["param"] == "images[1]" and "not a PNG image" in body["error"]["message"]
    assert roomy.fake.requests == []
