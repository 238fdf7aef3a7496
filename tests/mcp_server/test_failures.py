"""What a caller reads when it gets a call wrong, and what the server's stderr says: plain words, one line each."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
import yaml
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from pydantic import BaseModel, Field, ValidationError

from council.mcp_server.failures import PlainSpokenServer, argument_problems, route_library_logs
from tests.storage.test_store import simulated_without_latency

JARGON = ("validation error", "pydantic", "Input should be", "[type=", "input_value", "https://")
# (tool, arguments, what the caller must read)
MISTAKES = [
    ("ask_council", {}, "question: required"),
    ("ask_council", {"question": 3}, "question: must be a string, got 3"),
    ("ask_council", {"question": "Why?", "members": "atlas"}, 'members: must be a list, got "atlas"'),
    ("ask_council", {"question": "Why?", "members": ["atlas", 4]}, "members[1]: must be a string, got 4"),
    ("list_runs", {"limit": "abc"}, 'limit: must be a whole number, got "abc"'),
    ("evaluate_target", {"rubric": "default", "target": "a plan"}, 'target: must be a JSON object, got "a plan"'),
    ("evaluate_answer", {"rubric": "default"}, "question: required; answer: required"),
    ("get_run", {"run_id": None}, "run_id: must be a string, got null"),
    ("ask_counsel", {"question": "Why?"}, "unknown tool 'ask_counsel'; tools: ask_council, compare_answers"),
]


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    """A file for a server's stderr (the SDK's stdio client hands it to the process)."""
    with (tmp_path / "stderr.txt").open("w") as file:
        yield file


def council_with_stderr(tmp_path: Path, stderr: TextIO) -> Client:
    """``council mcp`` over stdio on the simulated council, its stderr written to ``stderr`` (an open file)."""
    config = tmp_path / "council.yaml"
    config.write_text(yaml.safe_dump(simulated_without_latency().model_dump(mode="json", exclude_none=True)))
    server = StdioServerParameters(command=sys.executable, args=["-m", "council", "mcp", "--config", str(config)],
                                   env={"COUNCIL_DB_PATH": str(tmp_path / "council.db")})
    return Client(stdio_client(server, errlog=stderr), read_timeout_seconds=60)


def assert_one_line_each(log: str, events: list[tuple[str, str]]) -> None:
    """One line per failure, in order (each naming its event and tool or prompt), and nothing else."""
    lines = log.splitlines()
    assert len(lines) == len(events), log
    for line, (event, name) in zip(lines, events, strict=True):
        assert f"] {event} " in line and f"={name}" in line, line
    assert "Traceback" not in log and not set("│╭╰─") & set(log), "no traceback, no rich box"


async def test_argument_mistakes_read_as_plain_words_and_log_one_line_each(tmp_path, errlog):
    async with council_with_stderr(tmp_path, errlog) as client:
        for tool, arguments, expected in MISTAKES:
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text
            assert result.is_error and text.startswith(expected), (tool, arguments, text)
            assert not any(word in text for word in JARGON), text
        still = await client.call_tool("list_runs", {"limit": 3})
        assert not still.is_error and still.structured_content == {"runs": []}
    log = Path(errlog.name).read_text()
    assert_one_line_each(log, [("tool_error", tool) for tool, _, _ in MISTAKES])
    assert "error='limit: must be a whole number'" in log
    assert "abc" not in log and "a plan" not in log, "what the caller sent stays out of the log"


async def test_an_unknown_rubric_points_to_the_rubric_resources(tmp_path, errlog):
    async with council_with_stderr(tmp_path, errlog) as client:
        judged = await client.call_tool("evaluate_answer", {"rubric": "strict", "question": "Q", "answer": "A"})
        asked = await client.call_tool("ask_council", {"question": "Why?", "rubric": "strict"})
        with pytest.raises(MCPError) as read:
            await client.read_resource("rubric://strict")
    for text in (judged.content[0].text, asked.content[0].text, read.value.error.message):
        assert text.startswith("unknown rubric 'strict'; choose one of: default, "), text
        assert "rubric://NAME" in text and "/v1/" not in text and "GET" not in text
    assert read.value.error.code == -32602, "an unknown resource is invalid params, not an internal error"
    assert_one_line_each(Path(errlog.name).read_text(),
                         [("tool_error", "evaluate_answer"), ("tool_error", "ask_council")])


async def test_a_crashing_tool_tells_the_caller_little_and_logs_one_line(capsys):
    server = PlainSpokenServer("crashes")

    @server.tool(description="Fails in its own code.")
    async def fragile(depth: int) -> str:
        return {"depth": depth}["width"]  # a KeyError: the server's bug, not the caller's

    async with Client(server) as client:
        result = await client.call_tool("fragile", {"depth": 1})
    text = result.content[0].text
    assert result.is_error and text.startswith("fragile failed in the server") and "width" not in text
    log = capsys.readouterr().err
    assert len(log.splitlines()) == 1 and "tool_crashed" in log and "tool=fragile" in log, log
    assert "KeyError: 'width'" in log and "test_failures.py:" in log, "the error and where it was raised"


async def test_a_crashing_prompt_is_an_internal_error_that_names_no_detail(capsys):
    server = PlainSpokenServer("crashes")

    @server.prompt(description="Fails in its own code.")
    def fragile(topic: str) -> str:
        return f"{topic}: {1 / len(topic.strip())}"  # a ZeroDivisionError for a blank-looking topic

    async with Client(server) as client:
        with pytest.raises(MCPError) as failed:
            await client.get_prompt("fragile", {"topic": "   "})
        fine = await client.get_prompt("fragile", {"topic": "ab"})
    assert failed.value.error.code == -32603 and "division" not in failed.value.error.message
    assert failed.value.error.message.startswith("the prompt 'fragile' failed in the server")
    assert fine.messages[0].content.text == "ab: 0.5"
    log = capsys.readouterr().err
    assert len(log.splitlines()) == 1 and "prompt_crashed" in log and "ZeroDivisionError" in log, log


def test_library_records_become_one_line_exceptions_included(capsys):
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        route_library_logs("warning")
        try:
            raise ConnectionError("the peer went away\nmid-message")
        except ConnectionError:
            logging.getLogger("mcp.server.streamable_http").exception("Error in message router")
        logging.getLogger("mcp.server.streamable_http").info("below the level: not written")
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
    log = capsys.readouterr().err
    assert len(log.splitlines()) == 1, log
    assert "Error in message router" in log and "ConnectionError: the peer went away mid-message" in log
    assert "[mcp.server.streamable_http]" in log and "Traceback" not in log


class Limits(BaseModel):
    """Bounds the tools' signatures do not use yet, phrased all the same."""

    max_usd: float = Field(gt=0)
    rounds: int = 1
    label: str = "x"


@pytest.mark.parametrize(("given", "expected"), [
    ({"max_usd": "abc"}, 'max_usd: must be a number, got "abc"'),
    ({"max_usd": 0}, "max_usd: must be greater than 0, got 0"),
    ({"max_usd": 1, "rounds": 2.5}, "rounds: must be a whole number, got 2.5"),
    ({"max_usd": 1, "label": ["a"]}, 'label: must be a string, got ["a"]'),
    ({"max_usd": "x" * 60}, 'max_usd: must be a number, got "' + "x" * 36 + "..."),
])
def test_argument_problems_in_plain_words(given, expected):
    with pytest.raises(ValidationError) as error:
        Limits.model_validate(given)
    assert [problem.for_caller() for problem in argument_problems(error.value)] == [expected]
