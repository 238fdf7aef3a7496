"""Images on the chat endpoint: each wire format gets them in its own shape, checked at the fake upstream."""

from __future__ import annotations

import base64

import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import CHAIRMAN_PREFIX, council_member
from tests.server.conftest import API_KEY, quality_judge, serve

# A 1x1 transparent PNG.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
                       "kgAAAABJRU5ErkJggg==")
PNG_B64 = base64.b64encode(PNG).decode()
DATA_URL = f"data:image/png;base64,{PNG_B64}"
MEMBERS = {"oa": "openai", "an": "anthropic", "ge": "gemini", "blind": "openai"}


def question(url: str, text: str = "What is in this picture?") -> list[dict[str, object]]:
    return [{"role": "user", "content": [{"type": "text", "text": text},
                                         {"type": "image_url", "image_url": {"url": url, "detail": "low"}}]}]


def config(fake: FakeLLMServer, *, allow_private: bool) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": provider, "model": f"model-{name}",
                     "base_url": fake.base_url(provider), **({"vision": False} if name == "blind" else {})}
                    for name, provider in MEMBERS.items()],
        "chairman": "oa",
        "retry": {"max_attempts": 1},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
        "transport": {"allow_private_image_urls": allow_private},
        "server": {"max_body_bytes": 256 * 1024},
    })


@pytest.fixture
async def vision_server(fake_llm: FakeLLMServer, request: pytest.FixtureRequest):
    for name in MEMBERS:
        fake_llm.script(f"model-{name}", Step(reply=council_member(f"{name} sees a pixel. quality=7", quality_judge)))
    allow_private = getattr(request, "param", True)
    runner, running = await serve(fake_llm, config(fake_llm, allow_private=allow_private), Store(":memory:"), API_KEY)
    yield running
    await runner.cleanup()
    await running.council.aclose()


def sdk(server) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)


def answer_request(fake: FakeLLMServer, name: str) -> RecordedRequest:
    """The member's Stage 1 request (its first one; later ones are reviews and the chairman's)."""
    return fake.requests_for(f"model-{name}")[0]


def assert_each_wire_shape(fake: FakeLLMServer, openai_url: str) -> None:
    openai_turn = answer_request(fake, "oa").body["messages"][-1]
    assert openai_turn["content"] == [{"type": "text", "text": "What is in this picture?"},
                                      {"type": "image_url", "image_url": {"url": openai_url}}]
    anthropic_turn = answer_request(fake, "an").body["messages"][-1]
    assert anthropic_turn["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        {"type": "text", "text": "What is in this picture?"}]
    gemini_turn = answer_request(fake, "ge").body["contents"][-1]
    assert gemini_turn["parts"] == [{"inline_data": {"mime_type": "image/png", "data": PNG_B64}},
                                    {"text": "What is in this picture?"}]
    assert answer_request(fake, "blind").body["messages"][-1] == {"role": "user",
                                                                  "content": "What is in this picture?"}


async def test_a_data_url_reaches_each_member_in_its_wire_shape(vision_server):
    async with sdk(vision_server) as client:
        raw = await client.chat.completions.with_raw_response.create(model="council", messages=question(DATA_URL))
    completion = raw.parse()
    assert completion.choices[0].message.content == CHAIRMAN_PREFIX + "model-oa"
    assert_each_wire_shape(vision_server.fake, DATA_URL)
    result = vision_server.store.get(raw.headers["x-council-run-id"])
    assert result is not None and result.status == "complete"
    assert any("blind has vision: false" in reason for reason in result.degraded_reasons)
    assert result.question[-1].images[0].url == DATA_URL


async def test_reviewers_and_the_chairman_get_text_only(vision_server):
    async with sdk(vision_server) as client:
        await client.chat.completions.create(model="council", messages=question(DATA_URL))
    later = [r for name in MEMBERS for r in vision_server.fake.requests_for(f"model-{name}")[1:]]
    assert later, "reviews and the chairman's synthesis were requested"
    for recorded in later:
        assert "base64" not in str(recorded.body) and "image_url" not in str(recorded.body)


async def test_a_linked_image_is_fetched_for_the_formats_that_need_bytes(vision_server):
    url = vision_server.fake.serve_image("pixel.png", PNG)
    async with sdk(vision_server) as client:
        await client.chat.completions.create(model="council", messages=question(url))
    assert_each_wire_shape(vision_server.fake, url)
    assert vision_server.fake.images_served == ["pixel.png", "pixel.png"], "once for Anthropic, once for Gemini"


async def failed_answers(server, url: str) -> dict[str, str]:
    """Ask the council about the image at ``url``; the members whose answer failed, with why."""
    async with sdk(server) as client:
        raw = await client.chat.completions.with_raw_response.create(model="council", messages=question(url))
    result = server.store.get(raw.headers["x-council-run-id"])
    assert result is not None
    return {a.member: a.error.message for a in result.answers if a.error is not None}




async def test_a_linked_image_that_is_not_an_image_fails_the_member_named(vision_server):
    url = vision_server.fake.serve_image("page.html", b"<html></html>", content_type="text/html")
    failed = await failed_answers(vision_server, url)
    assert set(failed) == {"an", "ge"}
    assert all("not an image of a supported type (text/html" in message for message in failed.values())


@pytest.mark.parametrize("stream", [False, True])
async def test_pass_through_members_get_images_plain_and_streamed(vision_server, stream):
    async with sdk(vision_server) as client:
        for name in ("an", "ge", "oa"):
            if stream:
                chunks = await client.chat.completions.create(model=f"member/{name}", messages=question(DATA_URL),
                                                              stream=True)
                text = "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
            else:
                completion = await client.chat.completions.create(model=f"member/{name}",
                                                                  messages=question(DATA_URL))
                text = completion.choices[0].message.content or ""
            assert text == f"{name} sees a pixel. quality=7"
    assert_each_wire_shape_without_blind(vision_server.fake)


def assert_each_wire_shape_without_blind(fake: FakeLLMServer) -> None:
    assert answer_request(fake, "an").body["messages"][-1]["content"][0]["source"]["data"] == PNG_B64
    assert answer_request(fake, "ge").body["contents"][-1]["parts"][0]["inline_data"]["data"] == PNG_B64
    assert answer_request(fake, "oa").body["messages"][-1]["content"][1]["image_url"]["url"] == DATA_URL


@pytest.mark.parametrize(
    ("messages", "param", "says"),
    [
        (question("data:image/png;base64,@@notbase64@@"), "messages[0].content[1].image_url.url",
         "data:image/TYPE;base64,DATA"),
        (question("data:image/bmp;base64," + PNG_B64), "messages[0].content[1].image_url.url",
         "image type image/bmp is not one of"),
        (question("ftp://example.com/a.png"), "messages[0].content[1].image_url.url",
         "data: URL or an http(s) URL"),
        ([{"role": "user", "content": [{"type": "image_url"}]}], "messages[0].content[0].image_url",
         "required for a part of type image_url"),
        ([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]}],
         "messages[0].content[0]", "only text and image_url parts"),
        ([{"role": "system", "content": [{"type": "image_url", "image_url": {"url": DATA_URL}}]},
          {"role": "user", "content": "hi"}], "messages[0].content[0]", "images are accepted in user messages only"),
    ],
)
async def test_bad_image_parts_are_a_400_naming_the_part(vision_server, messages, param, says):
    async with sdk(vision_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(model="council", messages=messages)
    assert caught.value.body["param"] == param
    assert says in caught.value.message
    assert vision_server.fake.requests == [], "nothing reached a member"


async def test_an_image_alone_is_a_question(vision_server):
    async with sdk(vision_server) as client:
        completion = await client.chat.completions.create(
            model="member/an", messages=[{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": DATA_URL}}]}])
    assert completion.choices[0].message.content
    assert answer_request(vision_server.fake, "an").body["messages"][-1]["content"][0]["type"] == "image"


# -- URLs refused on principle, when the request is read ----------------------------------------------

REFUSED_URLS = [
    "http://127.0.0.1:9/pixel.png", "http://localhost/pixel.png", "http://LOCALHOST./pixel.png",
    "http://app.localhost/pixel.png", "http://10.0.0.5/pixel.png", "http://192.168.1.1/pixel.png",
    "http://172.16.3.4/pixel.png", "http://100.64.0.1/pixel.png", "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/", "http://0.0.0.0/pixel.png",
    "http://2130706433/pixel.png", "http://0x7f.1/pixel.png", "http://0177.0.0.1/pixel.png",
    "http://127.1/pixel.png", "http://0x7f000001/pixel.png", "http://[::1]:8080/pixel.png",
    "http://[::ffff:127.0.0.1]/pixel.png", "http://[::ffff:7f00:1]/pixel.png", "http://[fe80::1]/pixel.png",
    "http://[fd00::1]/pixel.png", "http://intranet/pixel.png", "http://printer.local/pixel.png",
    "http://user:pw@127.0.0.1/pixel.png", "http://example.com@10.1.2.3/pixel.png",
]


@pytest.mark.parametrize("vision_server", [False], indirect=True)
@pytest.mark.parametrize("model", ["council", "member/oa", "member/an"])
@pytest.mark.parametrize("url", REFUSED_URLS)
async def test_an_image_url_refused_on_principle_is_a_400_before_any_member_is_called(vision_server, model, url):
    messages = [{"role": "user", "content": "look"}, {"role": "assistant", "content": "ok"},
                {"role": "user", "content": [{"type": "text", "text": "this one"},
                                             {"type": "image_url", "image_url": {"url": url}}]}]
    async with sdk(vision_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(model=model, messages=messages)
    assert caught.value.body["code"] == "invalid_image"
    assert caught.value.body["param"] == "messages[2].content[1].image_url.url"
    assert "public" in caught.value.message
    assert vision_server.fake.requests == [], "no member was called, none was sent the URL"


@pytest.mark.parametrize("vision_server", [False], indirect=True)
async def test_a_refused_url_is_a_400_on_the_tools_relay_too(vision_server):
    tool = {"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}
    async with sdk(vision_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(model="member/oa", tools=[tool],
                                                 messages=question("http://169.254.169.254/latest/meta-data/"))
    assert caught.value.body["code"] == "invalid_image"
    assert vision_server.fake.requests == []


async def test_private_urls_are_read_when_the_lab_setting_allows_them(vision_server):
    # vision_server allows private URLs by default: the URL is taken and sent on as it came.
    async with sdk(vision_server) as client:
        await client.chat.completions.create(model="member/oa", messages=question("http://10.0.0.5/pixel.png"))
    turn = answer_request(vision_server.fake, "oa").body["messages"][-1]
    assert turn["content"][1]["image_url"]["url"] == "http://10.0.0.5/pixel.png"
