"""The MCP prompts: ready-made requests a person picks in their client (Claude Desktop's "+" menu, say).

A prompt is a message the client puts in front of its model, filled in
from a short form: ask the council a question, compare the members'
answers, judge an answer against a rubric. Each message asks the model to
call the matching tool and says what to report back, so the person gets
the council's answer (not the model's own) presented the same way each
time. Arguments are checked here, in the same plain words as the tools'
(an unknown preset names the ones on offer).
"""

# No ``from __future__ import annotations``: the SDK reads each prompt's arguments from its annotations,
# and these name values (the presets, the members) only the enclosing function can see.
import asyncio
import json
from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

from council.mcp_server.failures import ArgumentError, unknown_rubric_message
from council.pipeline import Council
from council.rubrics import UnknownRubricError


def add_prompts(server: MCPServer, council: Council) -> None:
    """Register the prompts for ``council`` (its members, presets and rubrics named in the forms)."""
    presets = ", ".join(council.presets) or "none configured"
    rubric_default = council.rubric_catalog.configured_name

    @server.prompt(name="ask_the_council", title="Ask the council",
                   description="Put a question to the council and get its final answer, with how the members "
                               "ranked and how much they agreed.")
    def ask_the_council(
        question: Annotated[str, Field(description="The question for the council.")],
        preset: Annotated[str, Field(description=f"Optional: a preset ({presets}).")] = "",
    ) -> str:
        how = "the ask_council tool" + (f' (preset "{known_preset(preset)}")' if preset else "")
        return (f"Put the question below to the council with {how}. Then give me the council's final answer "
                "as it is, and say which member wrote it. After it, in two or three lines: how the members "
                "ranked, how much the reviewers agreed, and anything that degraded the run. Do not answer the "
                f"question yourself first.\n\nQuestion:\n{question}")

    @server.prompt(name="compare_the_answers", title="Compare the members' answers",
                   description="Ask the council a question and compare every member's answer side by side, "
                               "with its rank and scores from the peer review.")
    def compare_the_answers(
        question: Annotated[str, Field(description="The question every member answers.")],
        members: Annotated[str, Field(description="Optional: some of the members, separated by commas "
                                                  f"({', '.join(council.member_names)}).")] = "",
    ) -> str:
        chosen = known_members(members)
        how = "the compare_answers tool" + (f" (members {json.dumps(chosen)})" if chosen else "")
        return (f"Use {how} on the question below. Show me each member's answer (a summary if it is long) "
                "with its rank and score, best first. Then tell me where the answers agree, where they differ, "
                f"and which criteria set them apart.\n\nQuestion:\n{question}")

    @server.prompt(name="judge_an_answer", title="Judge an answer against a rubric",
                   description="Have the council's reviewers judge a given answer to a question against a "
                               "rubric: pass or fail, the score, each criterion, what to improve.")
    async def judge_an_answer(
        question: Annotated[str, Field(description="The question the answer is for.")],
        answer: Annotated[str, Field(description="The answer to judge.")],
        rubric: Annotated[str, Field(description=f"Optional: a rubric by name (default {rubric_default!r}; "
                                                 "the rubric:// resources list them).")] = "",
    ) -> str:
        name = rubric or rubric_default
        try:
            await asyncio.to_thread(council.named_rubric, name)
        except UnknownRubricError as exc:
            raise ArgumentError(f"rubric: {unknown_rubric_message(exc)}") from None
        return (f'Judge the answer below with the evaluate_answer tool and the rubric "{name}". Tell me whether '
                "it passed and its score, the criteria it fell short on, and the feedback on what to improve."
                f"\n\nQuestion:\n{question}\n\nAnswer:\n{answer}")

    def known_preset(preset: str) -> str:
        if preset not in council.presets:
            raise ArgumentError(f"preset: unknown preset {preset!r}; presets: {presets}")
        return preset

    def known_members(members: str) -> list[str]:
        chosen = [name.strip() for name in members.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in council.member_names]
        if unknown:
            raise ArgumentError(f"members: unknown members: {', '.join(unknown)}; the council has "
                                  f"{', '.join(council.member_names)}")
        return chosen
