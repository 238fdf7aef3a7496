"""The MCP prompts, through the SDK's own client over stdio: listed with their arguments, rendered, refused plainly."""

from __future__ import annotations

import pytest
from mcp import MCPError

from tests.mcp_server.test_stdio import council_over_stdio

PROMPTS = {
    "ask_the_council": [("question", True), ("preset", False)],
    "compare_the_answers": [("question", True), ("members", False)],
    "judge_an_answer": [("question", True), ("answer", True), ("rubric", False)],
}


async def test_prompts_are_listed_with_titles_and_arguments(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        capabilities = client.server_capabilities
    assert {name: [(a.name, a.required) for a in p.arguments or []] for name, p in listed.items()} == PROMPTS
    assert all(prompt.title and prompt.description for prompt in listed.values())
    described = {a.name: a.description for a in listed["ask_the_council"].arguments or []}
    assert described["preset"] == "Optional: a preset (deliberate, full, quick).", "names the presets on offer"
    members = {a.name: a.description for a in listed["compare_the_answers"].arguments or []}["members"]
    assert "atlas, boreal, cirrus, delta" in (members or "")
    assert capabilities is not None and capabilities.prompts is not None


async def test_each_prompt_asks_for_its_tool_with_the_arguments_given(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        ask = await client.get_prompt("ask_the_council", {"question": "Why is the sky blue?", "preset": "quick"})
        blank = await client.get_prompt("ask_the_council", {"question": "Why?", "preset": ""})
        compare = await client.get_prompt("compare_the_answers", {"question": "Why do leaves fall?",
                                                                  "members": "atlas, cirrus"})
        judge = await client.get_prompt("judge_an_answer", {"question": "Why is the sky blue?",
                                                            "answer": "Rayleigh scattering."})
    texts = {}
    for name, rendered in (("ask", ask), ("blank", blank), ("compare", compare), ("judge", judge)):
        assert [message.role for message in rendered.messages] == ["user"], name
        texts[name] = rendered.messages[0].content.text
    assert 'ask_council tool (preset "quick")' in texts["ask"] and texts["ask"].endswith("Why is the sky blue?")
    assert "ask_council tool." in texts["blank"] and "preset" not in texts["blank"], "a blank field is no preset"
    assert 'compare_answers tool (members ["atlas", "cirrus"])' in texts["compare"]
    assert 'evaluate_answer tool and the rubric "default"' in texts["judge"]
    assert texts["judge"].endswith("Question:\nWhy is the sky blue?\n\nAnswer:\nRayleigh scattering.")


REFUSALS = [
    ("ask_the_council", {"preset": "quick"}, "question: required"),
    ("ask_the_council", {"question": ""}, "question: required"),
    ("judge_an_answer", {"question": "Q"}, "answer: required"),
    ("ask_the_council", {"question": "Q", "preset": "slow"},
     "preset: unknown preset 'slow'; presets: deliberate, full, quick"),
    ("compare_the_answers", {"question": "Q", "members": "atlas, zephyr"},
     "members: unknown members: zephyr; the council has atlas, boreal, cirrus, delta"),
    ("judge_an_answer", {"question": "Q", "answer": "A", "rubric": "strict"},
     "rubric: unknown rubric 'strict'; choose one of: default, "),
    ("ask_the_jury", {"question": "Q"},
     "unknown prompt 'ask_the_jury'; prompts: ask_the_council, compare_the_answers, judge_an_answer"),
]


async def test_a_wrong_prompt_argument_is_invalid_params_in_plain_words(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        for name, arguments, expected in REFUSALS:
            with pytest.raises(MCPError) as refused:
                await client.get_prompt(name, arguments)
            error = refused.value.error
            assert error.code == -32602 and error.message.startswith(expected), (name, arguments, error)
        still = await client.get_prompt("ask_the_council", {"question": "Q"})
    assert still.messages, "the server keeps serving"
