"""How the MCP server reports what went wrong: plain words to the caller, one structured log line on stderr.

The SDK's own reports are written for Python developers: an argument
mistake comes back as pydantic's validation text (with a link to its
documentation), an unknown rubric would name the HTTP server's route,
and its log lines go through a rich console box that wraps one event over
many lines, tracebacks included. Here the caller (a model, or a person
reading Claude Desktop) gets ``question: required`` or ``limit: must be a
whole number, got "abc"``, and the server's stderr, which Claude Desktop
keeps as the server's log, gets one line per failure in Council's own
log format.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import MCPServerError, ResourceError, ToolError, UnexpectedToolError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, GetPromptResult, InputRequiredResult, TextContent
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from council.logs import get_logger
from council.rubrics import UnknownRubricError

_log = get_logger("mcp")
_SHOWN_INPUT = 40  # characters of a rejected value quoted back to the caller


class ArgumentError(Exception):
    """A caller's argument is wrong in a way the schema cannot say (an unknown preset, say); the text names it."""


@dataclass(frozen=True)
class Problem:
    """One wrong argument: its name (``members[1]`` for an item), what it must be, and what was given."""

    argument: str
    must: str
    given: str | None = None

    def for_caller(self) -> str:
        """``limit: must be a whole number, got "abc"``: what the caller reads."""
        return f"{self.argument}: {self.must}" + ("" if self.given is None else f", got {self.given}")

    def for_log(self) -> str:
        """The same without the value: what was given is the caller's data, not the log's."""
        return f"{self.argument}: {self.must}"


class PlainSpokenServer(MCPServer[Any]):
    """The SDK's server, with every tool and prompt failure in plain words and one log line.

    A tool failure stays what MCP says it is (a result with ``isError``, the
    message as its text); a prompt failure is a JSON-RPC error. Either way the
    SDK's own report is replaced, not added to.
    """

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        """Run a tool; a failure comes back as an error result that says what is wrong, and is logged once."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as crash:
            cause = _innermost(crash)
            log_crash("tool", name, cause)
            return _failed(f"{name} failed in the server (the server's log has the error)")
        except ToolError as refused:
            if isinstance(refused.__cause__, ValidationError):
                problems = argument_problems(refused.__cause__)
                log_refused("tool", name, [p.for_log() for p in problems])
                return _failed("; ".join(p.for_caller() for p in problems))
            if isinstance(refused.__cause__, (ToolError, ResourceError)):
                message = str(refused.__cause__)  # the tool's own words, without the SDK's "Error executing tool"
            else:  # the SDK's, for a tool that does not exist
                message = f"unknown tool {name!r}; tools: {', '.join(t.name for t in await self.list_tools())}"
            log_refused("tool", name, [message])
            return _failed(message)

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None,
                         context: Context[Any, Any] | None = None) -> GetPromptResult | InputRequiredResult:
        """A prompt's messages; an unknown prompt or a missing or wrong argument is an invalid-params error."""
        offered = {prompt.name: prompt for prompt in await self.list_prompts()}
        prompt = offered.get(name)
        if prompt is None:
            self._refuse_prompt(name, f"unknown prompt {name!r}; prompts: {', '.join(offered)}")
        # A form (Claude Desktop's) sends an argument left blank as "": absent, as far as the prompt goes.
        given = {key: value for key, value in (arguments or {}).items() if value not in ("", None)}
        missing = [arg.name for arg in prompt.arguments or [] if arg.required and arg.name not in given]
        if missing:
            self._refuse_prompt(name, "; ".join(f"{arg}: required" for arg in missing))
        try:
            return await super().get_prompt(name, given, context)
        except MCPError:
            raise
        except Exception as failure:
            problem = _problem_in(failure)
            if problem is not None:
                self._refuse_prompt(name, str(problem))
            log_crash("prompt", name, _innermost(failure))
            raise MCPError(INTERNAL_ERROR, f"the prompt {name!r} failed in the server (the server's log has "
                                           "the error)") from None

    @staticmethod
    def _refuse_prompt(name: str, message: str) -> NoReturn:
        log_refused("prompt", name, [message])
        raise MCPError(INVALID_PARAMS, message)


def argument_problems(error: ValidationError) -> list[Problem]:
    """Each of pydantic's errors about a tool's arguments, in plain words naming the argument."""
    return [Problem(_argument(detail["loc"]), _must(detail),
                    None if detail["type"] == "missing" else _shown(detail.get("input")))
            for detail in error.errors(include_url=False)]


def unknown_rubric_message(error: UnknownRubricError) -> str:
    """An unknown rubric, pointed at the ``rubric://`` resources (the HTTP server's route means nothing here)."""
    shown = error.reference if len(error.reference) <= 80 else error.reference[:77] + "..."
    return (f"unknown rubric {shown!r}; choose one of: {', '.join(error.choices) or '(none)'} "
            "(each is the resource rubric://NAME, listed with the server's resources)")


def log_refused(kind: str, name: str, problems: Iterable[str]) -> None:
    """One line for a call the caller got wrong (``kind`` is tool or prompt): what, and why."""
    _log.warning(f"{kind}_error", **{kind: name}, error="; ".join(problems))


def log_crash(kind: str, name: str, error: BaseException) -> None:
    """One line for a call that failed in the server's own code: the error and where it was raised."""
    _log.error(f"{kind}_crashed", **{kind: name}, error=_one_line(error), at=_raised_at(error))


def route_library_logs(level: str) -> None:
    """Send the standard library's log records (the SDK's, uvicorn's) through Council's one-line logger.

    Called before the SDK server is built, so the SDK's own set-up (a rich
    console handler on the root logger) finds a handler there and adds none.
    """
    logging.basicConfig(force=True, level=level.upper(), handlers=[_OneLine()])


class _OneLine(logging.Handler):
    """A record as one structured line: the message with its newlines folded, an exception as ``Type: text``."""

    def emit(self, record: logging.LogRecord) -> None:
        fields: dict[str, Any] = {"logger": record.name}
        if record.exc_info and record.exc_info[1] is not None:
            fields["error"] = _one_line(record.exc_info[1])
            fields["at"] = _raised_at(record.exc_info[1])
        try:
            message = " ".join(record.getMessage().split())
        except (TypeError, ValueError):  # a record whose arguments do not fit its format
            message = str(record.msg)
        _log.log(record.levelno, message, **fields)


def _failed(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _innermost(error: BaseException) -> BaseException:
    # The SDK wraps a failure once per layer it passes (a tool, a nested tool; a prompt twice, in plain
    # ValueErrors): what the server's own code raised is under the wrappers.
    while error.__cause__ is not None and (isinstance(error, MCPServerError) or type(error) is ValueError):
        error = error.__cause__
    return error


def _problem_in(error: BaseException) -> ArgumentError | None:
    cause: BaseException | None = error
    while cause is not None and not isinstance(cause, ArgumentError):
        cause = cause.__cause__
    return cause


def _argument(location: tuple[int | str, ...]) -> str:
    name = str(location[0]) if location else "arguments"
    for part in location[1:]:
        name += f"[{part}]" if isinstance(part, int) else f".{part}"
    return name


def _must(detail: ErrorDetails) -> str:
    kind, context = detail["type"], detail.get("ctx") or {}
    if kind == "missing":
        return "required"
    plain = _PLAIN.get(kind)
    if plain is not None:
        return plain
    bound = _BOUNDS.get(kind)
    if bound is not None:
        limit = context.get(bound[1])
        return f"{bound[0]} {int(limit) if isinstance(limit, float) and limit.is_integer() else limit}"
    if kind in ("string_too_short", "too_short"):
        least = context.get("min_length", 1)
        return "must not be empty" if least == 1 else f"must have at least {least} {_unit(kind)}"
    if kind in ("string_too_long", "too_long"):
        return f"must have at most {context.get('max_length')} {_unit(kind)}"
    if kind in ("literal_error", "enum"):
        return f"must be one of {context.get('expected')}"
    # Anything rarer: pydantic's own sentence, without its jargon.
    message = detail["msg"].removeprefix("Value error, ").replace("Input should be", "must be")
    return message[:1].lower() + message[1:]


def _unit(kind: str) -> str:
    return "characters" if kind.startswith("string") else "items"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN_INPUT else text[:_SHOWN_INPUT - 3] + "..."


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())


def _raised_at(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"


_PLAIN = {
    "string_type": "must be a string",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be a JSON object",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
}
_BOUNDS = {
    "greater_than": ("must be greater than", "gt"),
    "greater_than_equal": ("must be at least", "ge"),
    "less_than": ("must be less than", "lt"),
    "less_than_equal": ("must be at most", "le"),
}
