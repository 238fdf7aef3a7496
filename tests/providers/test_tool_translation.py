"""A chat-completions body with tools, read once and written in Anthropic's and Gemini's terms."""

from __future__ import annotations

import pytest

from council.providers.anthropic_tools import anthropic_messages, anthropic_tool_fields
from council.providers.gemini_tools import UNSIGNED, Signatures, gemini_contents, gemini_tool_fields
from council.providers.tool_request import UntranslatableError, read_tool_request

TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
CALLS = [{"id": "call_a", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "a"}'}},
         {"id": "call_b", "type": "function", "function": {"name": "lookup", "arguments": ""}}]
BODY = {"tools": [TOOL], "messages": [
    {"role": "developer", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Look up a and b."}]},
    {"role": "assistant", "content": "Looking.", "tool_calls": CALLS},
    {"role": "tool", "tool_call_id": "call_a", "content": "plain text, not JSON"},
    {"role": "tool", "tool_call_id": "call_b", "content": "[1, 2]"},
    {"role": "user", "content": "Thanks; and c?"},
]}


def test_parallel_results_and_a_new_question_make_one_user_turn_for_claude():
    system, messages = anthropic_messages(read_tool_request(BODY))
    assert system == "Be brief."
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "Look up a and b."}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "call_a", "name": "lookup", "input": {"q": "a"}},
            {"type": "tool_use", "id": "call_b", "name": "lookup", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "plain text, not JSON"},
            {"type": "tool_result", "tool_use_id": "call_b", "content": "[1, 2]"},
            {"type": "text", "text": "Thanks; and c?"}]},
    ]


def test_gemini_gets_results_as_objects_and_a_placeholder_signature_for_an_unknown_call():
    signatures = Signatures()
    signatures.keep("call_b", "sig-b")
    system, contents = gemini_contents(read_tool_request(BODY), signatures)
    assert system == "Be brief."
    assert contents[1] == {"role": "model", "parts": [
        {"text": "Looking."},
        {"functionCall": {"name": "lookup", "args": {"q": "a"}}, "thoughtSignature": UNSIGNED},
        {"functionCall": {"name": "lookup", "args": {}}, "thoughtSignature": "sig-b"}]}
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "lookup", "response": {"content": "plain text, not JSON"}}},
        {"functionResponse": {"name": "lookup", "response": {"content": [1, 2]}}},
        {"text": "Thanks; and c?"}]}


def test_a_conversation_with_calls_but_no_tools_declares_the_called_ones_and_calls_none():
    body = {**BODY, "tools": None}
    assert anthropic_tool_fields(read_tool_request(body)) == {
        "tools": [{"name": "lookup", "input_schema": {"type": "object", "properties": {}}}],
        "tool_choice": {"type": "none"}}
    assert gemini_tool_fields(read_tool_request(body))["toolConfig"] == {"functionCallingConfig": {"mode": "NONE"}}


def test_allowed_tools_narrow_what_is_sent():
    other = {"type": "function", "function": {"name": "other"}}
    choice = {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [
        {"type": "function", "function": {"name": "other"}}]}}
    request = read_tool_request({**BODY, "tools": [TOOL, other], "tool_choice": choice})
    assert [t["name"] for t in anthropic_tool_fields(request)["tools"]] == ["other"]
    assert anthropic_tool_fields(request)["tool_choice"] == {"type": "any"}


@pytest.mark.parametrize(("body", "param"), [
    ({"tools": [{"type": "custom", "custom": {"name": "x"}}]}, "tools[0]"),
    ({"tools": [TOOL], "tool_choice": {"type": "custom", "custom": {"name": "x"}}}, "tool_choice"),
    ({"tools": [TOOL], "tool_choice": {"type": "function", "function": {"name": "missing"}}}, "tool_choice"),
    ({"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]},
     "messages[0].content[0]"),
])
def test_what_has_no_translation_is_named(body, param):
    with pytest.raises(UntranslatableError) as caught:
        read_tool_request({"messages": [], **body})
    assert caught.value.param == param
