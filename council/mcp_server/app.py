"""``council mcp``: the council as Model Context Protocol tools and resources (the official ``mcp`` SDK).

Tools run a council, judge an answer or a structured target against a
rubric, and read stored runs; each has a schema from its signature and a
description a model can act on. A council run reports MCP progress as its
stages finish. Anything a caller got wrong (an unknown member, a rubric
not on offer, a quorum not met) is a tool error with a clear message; the
server keeps serving. Rubrics are chosen by name only, never by path: the
caller is a model, and a name cannot reach the server's files.

Resources, read-only: ``rubric://NAME`` (the rubrics on offer) and
``run://ID`` (stored runs).
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from pydantic import AfterValidator, Field

from council._version import __version__
from council.errors import CouncilError, StorageError
from council.events import StageEvent
from council.mcp_server.failures import PlainSpokenServer, unknown_rubric_message
from council.mcp_server.prompts import add_prompts
from council.mcp_server.results import (
    PROGRESS_STEPS,
    ask_summary,
    comparison,
    progress_of,
    run_line,
    run_record,
    verdict_summary,
)
from council.pipeline import DEFAULT_CHAIRMAN, Council, RunRequest, caller_scope, judge_answer, judge_target
from council.result import CouncilResult
from council.rubrics import Rubric, UnknownRubricError

#: The most runs list_runs returns at once (what it returned at most before it checked its limit).
MAX_LISTED_RUNS = 200


def _plain_text(value: str) -> str:
    # Refused as the HTTP API refuses it: a NUL is never meant, and cuts the text short where C code reads it.
    # (An unpaired surrogate never gets this far: the JSON-RPC envelope is refused, see envelope.py.)
    if "\x00" in value:
        raise ValueError("must not contain a NUL character")
    return value


def _plain_json(value: dict[str, Any]) -> dict[str, Any]:
    def visit(item: Any, where: str) -> None:
        if isinstance(item, str):
            try:
                _plain_text(item)
            except ValueError as problem:
                raise ValueError(f"{where or 'a value'}: {problem}") from None
        elif isinstance(item, dict):
            for key, inner in item.items():
                visit(str(key), where)
                visit(inner, f"{where}.{key}" if where else str(key))
        elif isinstance(item, list):
            for index, inner in enumerate(item):
                visit(inner, f"{where}[{index}]")

    visit(value, "")
    return value


#: Text a caller sends: a string with no NUL character.
Text = Annotated[str, AfterValidator(_plain_text)]
#: A JSON object whose strings, at any depth, are such text.
PlainJson = Annotated[dict[str, Any], AfterValidator(_plain_json)]

INSTRUCTIONS = (
    "A council of language models: ask_council gets one question answered by every member, peer-reviewed "
    "anonymously, ranked with calibrated scores and summed up by a chairman. Use it for questions where a "
    "second and third opinion matter. compare_answers shows every member's answer; evaluate_answer and "
    "evaluate_target judge a given answer or JSON object against a rubric (see the rubric:// resources)."
)


def build_server(council: Council) -> MCPServer:
    """The MCP server for an open council (the caller keeps it open while the server runs)."""
    server = PlainSpokenServer("council", instructions=INSTRUCTIONS, version=__version__)
    members = ", ".join(council.member_names)
    presets = ", ".join(f"{name} ({p.description})" if p.description else name
                        for name, p in council.presets.items()) or "none configured"

    def rubric_named(name: str | None) -> Rubric | None:
        try:
            return None if name is None else council.named_rubric(name)
        except CouncilError as exc:
            raise ToolError(plain(exc)) from None

    async def run(question: str, ctx: Context, members: list[str] | None, chairman: str | None,
                  rubric: str | None, preset: str | None, output_schema: dict[str, Any] | None = None) -> CouncilResult:
        # A remote client names a rubric from the rubric:// resources, never a path.
        # Over HTTP with cache.scope: key, a cached run answers only callers with the same API key.
        headers = ctx.headers if council.config.cache.scope == "key" else None
        request = RunRequest(messages=question, members=members, chairman=chairman or DEFAULT_CHAIRMAN,
                             rubric=rubric, rubric_source="named", preset=preset, output_type=output_schema,
                             cache_scope=caller_scope(headers.get("authorization")) if headers else None)
        steps: asyncio.Queue[tuple[float, str] | None] = asyncio.Queue()

        def on_event(event: StageEvent) -> None:
            step = progress_of(event)
            if step is not None:
                steps.put_nowait(step)

        async def report() -> None:
            while (step := await steps.get()) is not None:
                await ctx.report_progress(step[0], PROGRESS_STEPS, step[1])

        reporter = asyncio.create_task(report())
        try:
            result = await council.ask(request, on_event=on_event)
        except CouncilError as exc:
            raise ToolError(plain(exc)) from None
        finally:
            steps.put_nowait(None)
            await reporter
        # A blocked run is an answer too: its status says so and its final_answer says why, as on the server.
        if result.status not in ("complete", "blocked"):
            raise ToolError(f"the council could not answer (run {result.run_id}): {result.error or result.status}")
        return result

    @server.tool(description=f"Ask the council a question. Members ({members}) answer, review each other "
                             "anonymously and are ranked; returns the final answer, the ranking with scores, how "
                             "much reviewers agreed, anything that degraded the run, and its run id. Optional: "
                             "members (a subset), chairman (a member, or 'none' for the top answer as is), "
                             f"rubric (a name from the rubric:// resources), preset (presets: {presets}), "
                             "output_schema (a JSON Schema: the answer is one JSON value valid for it, in 'output').")
    async def ask_council(question: Text, ctx: Context, members: list[Text] | None = None,
                          chairman: Text | None = None, rubric: Text | None = None,
                          preset: Text | None = None, output_schema: PlainJson | None = None) -> dict[str, Any]:
        return ask_summary(await run(question, ctx, members, chairman, rubric, preset, output_schema))

    @server.tool(description="Ask the council and compare: every member's answer side by side with its rank, "
                             "score and per-criterion scores from the peer review.")
    async def compare_answers(question: Text, ctx: Context, members: list[Text] | None = None,
                              rubric: Text | None = None, preset: Text | None = None) -> dict[str, Any]:
        return comparison(await run(question, ctx, members, "none", rubric, preset))

    @server.tool(description="Judge a given answer to a question against a rubric (a name from the rubric:// "
                             "resources): pass or fail, the score, each criterion, and feedback on what to improve.")
    async def evaluate_answer(rubric: Text, question: Text, answer: Text) -> dict[str, Any]:
        chosen = rubric_named(rubric)
        try:
            verdict = await judge_answer(council, question, answer, chosen)
        except CouncilError as exc:
            raise ToolError(plain(exc)) from None
        return verdict_summary(verdict)

    @server.tool(description="Evaluate a structured target (a JSON object: a plan, a config, a record) against a "
                             "rubric by name: each criterion's level, the weighted score, pass or fail, feedback.")
    async def evaluate_target(rubric: Text, target: PlainJson) -> dict[str, Any]:
        chosen = rubric_named(rubric)
        assert chosen is not None
        try:
            evaluation = await judge_target(council, chosen, target)
        except CouncilError as exc:
            raise ToolError(plain(exc)) from None
        data: dict[str, Any] = evaluation.model_dump(mode="json")
        return data

    @server.tool(description="The most recent stored council runs, newest first: run id, time, status, question "
                             f"(limit: how many, 1 to {MAX_LISTED_RUNS}).")
    async def list_runs(limit: Annotated[int, Field(ge=1, le=MAX_LISTED_RUNS)] = 20) -> dict[str, Any]:
        runs = council.runs
        if runs is None:
            raise ToolError("this council keeps no run database")
        try:
            listed = await runs.call(runs.recent, limit)
        except StorageError as exc:
            raise ToolError(f"the run database failed: {exc.cause or exc}") from None
        return {"runs": [run_line(r) for r in listed]}

    @server.tool(description="One stored run in full (every answer, review, score and the final answer), by run id.")
    async def get_run(run_id: Text) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(await stored_run(run_id, ToolError))
        return data

    async def stored_run(run_id: str, error: type[Exception]) -> str:
        runs = council.runs
        if runs is None:
            raise error("this council keeps no run database")
        try:
            result = await runs.call(runs.get, run_id)
        except StorageError as exc:
            raise error(f"the run database failed: {exc.cause or exc}") from None
        if result is None:
            raise error(f"no stored run {run_id!r} (list_runs shows the recent ones)")
        return run_record(result)

    @server.resource("run://{run_id}", description="A stored council run, as JSON.", mime_type="application/json")
    async def run_resource(run_id: str) -> str:
        return await stored_run(run_id, ResourceError)

    @server.resource("rubric://{name}", description="A rubric on offer, by name (rubrics registered since the "
                     "server started too).", mime_type="application/json")
    async def any_rubric(name: str) -> str:
        try:
            rubric = await asyncio.to_thread(council.named_rubric, name)
        except UnknownRubricError as exc:
            raise ResourceNotFoundError(unknown_rubric_message(exc)) from None
        except CouncilError as exc:
            raise ResourceError(str(exc)) from None
        return rubric.model_dump_json(by_alias=True, indent=2)

    # Listed one by one too, so a client browsing resources finds them.
    for name in council.rubric_catalog.names():
        _add_rubric_resource(server, council, name)
    add_prompts(server, council)
    return server


def plain(error: CouncilError) -> str:
    """A council error as the MCP caller should read it (an unknown rubric points to the rubric:// resources)."""
    return unknown_rubric_message(error) if isinstance(error, UnknownRubricError) else str(error)


def _add_rubric_resource(server: MCPServer, council: Council, name: str) -> None:
    @server.resource(f"rubric://{name}", name=f"rubric {name}", mime_type="application/json",
                     description=f"The rubric {name!r}: its criteria, levels, weights and threshold.")
    async def rubric_resource() -> str:
        return council.named_rubric(name).model_dump_json(by_alias=True, indent=2)
