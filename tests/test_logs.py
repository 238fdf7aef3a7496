"""No API key is ever printed, whatever the log level or format."""

from __future__ import annotations

import io
import json

import pytest

from council.errors import AuthFailedError
from council.logs import configure_logging, get_logger, register_secret
from council.testing.fake_llm import Step
from council.types import ChatMessage

SECRET = "sk-live-0123456789abcdefSECRET"


@pytest.fixture
def log_stream():
    stream = io.StringIO()
    configure_logging("debug", "json", stream)
    yield stream
    configure_logging("warning", "console")


def test_registered_secrets_are_scrubbed_everywhere(log_stream):
    register_secret(SECRET)
    log = get_logger("test")
    log.debug("message with " + SECRET, nested={"headers": {"Authorization": f"Bearer {SECRET}"}}, api_key=SECRET,
              items=[SECRET], error=ValueError(f"bad key {SECRET}"))
    output = log_stream.getvalue()
    assert SECRET not in output
    record = json.loads(output)
    assert record["event"] == "message with ***"
    assert record["nested"]["headers"]["Authorization"] == "***"
    assert record["api_key"] == "***"
    assert record["items"] == ["***"]
    assert record["error"] == "ValueError: bad key ***"
    assert record["level"] == "debug" and record["component"] == "test"


def test_console_format_is_plain_text(log_stream):
    stream = io.StringIO()
    configure_logging("info", "console", stream)
    get_logger("test").info("hello", member="alpha")
    get_logger("test").debug("hidden")
    text = stream.getvalue()
    assert "hello" in text and "member=alpha" in text and "hidden" not in text


async def test_an_upstream_error_echoing_the_key_is_scrubbed(fake_llm, make_provider, log_stream):
    fake_llm.script("m", Step(status=401, error_message=f"Incorrect API key provided: {SECRET}"))
    provider = make_provider("openai", "m", api_key=SECRET)
    with pytest.raises(AuthFailedError) as caught:
        await provider.complete([ChatMessage(role="user", content="hi")])
    assert SECRET not in str(caught.value)
    assert "Incorrect API key provided: ***" in str(caught.value)
    assert fake_llm.requests[0].headers["Authorization"] == f"Bearer {SECRET}"


async def test_retry_logs_never_carry_the_key(fake_llm, make_provider, log_stream):
    fake_llm.script("m", Step(status=503, error_message=f"upstream saw {SECRET}"), Step())
    await make_provider("openai", "m", api_key=SECRET).complete([ChatMessage(role="user", content="hi")])
    output = log_stream.getvalue()
    assert "retrying" in output
    assert SECRET not in output


def test_console_lines_show_control_characters_escaped_and_stay_one_line():
    stream = io.StringIO()
    configure_logging("info", "console", stream)
    try:
        get_logger("test").info("seen\x1b[2J", path="/a\x00b", plain="/healthz", note="line\nforged=1")
    finally:
        configure_logging("warning", "console")
    output = stream.getvalue()
    assert output.count("\n") == 1 and "\x00" not in output and "\x1b" not in output
    assert "path='/a\\x00b'" in output and "plain=/healthz" in output and "note='line\\nforged=1'" in output
    assert "'seen\\x1b[2J'" in output
