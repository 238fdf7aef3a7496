"""``council mcp`` over stdio, driven by the MCP SDK's own client, on the simulated council and the fake upstream."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client, StdioServerParameters

from council.rubrics import parse_rubric
from council.storage import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member

TOOLS = {"ask_council", "compare_answers", "evaluate_answer", "evaluate_target", "list_runs", "get_run"}
SHAPE_RUBRIC = {
    "id": "shape", "name": "Shape", "description": "A quiz has the expected shape", "version": "1.0.0",
    "target_type": "content", "pass_threshold": 0.7,
    "criteria": [{"id": "well_formed", "name": "Well formed", "description": "A list of question strings",
                  "weight": 1.0,
                  "levels": [{"id": "invalid", "label": "Invalid", "description": "Not the shape", "score": 0.0},
                             {"id": "valid", "label": "Valid", "description": "The shape", "score": 1.0}],
                  "scoring_method": {"type": "schema", "schema": {
                      "type": "object", "required": ["questions"],
                      "properties": {"questions": {"type": "array", "items": {"type": "string"}}}}}}]}


def council_over_stdio(tmp_path: Path, config: dict) -> Client:
    """A client that launches ``council mcp`` with ``config`` and its own database."""
    config_path = tmp_path / "council.yaml"
    config_path.write_text(yaml.safe_dump(config))
    env = {"COUNCIL_DB_PATH": str(tmp_path / "council.db"), "COUNCIL_LOG_LEVEL": "warning"}
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "council", "mcp", "--config",
                                                                      str(config_path)], env=env),
                  read_timeout_seconds=60)


async def test_tools_are_listed_with_schemas_and_descriptions(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    assert tools["ask_council"].input_schema["required"] == ["question"]
    assert {"members", "chairman", "rubric"} <= set(tools["ask_council"].input_schema["properties"])
    assert tools["evaluate_answer"].input_schema["required"] == ["rubric", "question", "answer"]
    assert all(tool.description and len(tool.description) > 40 for tool in tools.values())


async def test_ask_council_reports_progress_and_its_run_is_readable(tmp_path, simulated):
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with council_over_stdio(tmp_path, simulated) as client:
        asked = await client.call_tool("ask_council", {"question": "Why is the sky blue?"},
                                       progress_callback=on_progress)
        assert not asked.is_error, asked.content
        answer = asked.structured_content
        assert answer["status"] == "complete" and answer["final_answer"] and answer["simulated"]
        assert [entry["rank"] for entry in answer["ranking"]] == [1, 2, 3, 4]
        assert {"member", "score", "raw_mean", "verdict"} <= set(answer["ranking"][0])
        assert answer["agreement"]["n_reviewers"] == 4
        run_id = answer["run_id"]

        listed = (await client.call_tool("list_runs", {"limit": 5})).structured_content
        assert [run["run_id"] for run in listed["runs"]] == [run_id]
        full = (await client.call_tool("get_run", {"run_id": run_id})).structured_content
        assert full["run_id"] == run_id and len(full["reviews"]) == 4
        resource = await client.read_resource(f"run://{run_id}")
        assert f'"run_id":"{run_id}"' in resource.contents[0].text
    assert [step for step, _, _ in progress] == [1, 3, 4]
    assert all(total == 4 for _, total, _ in progress) and progress[0][2].startswith("answers are in")


async def test_compare_and_evaluate(tmp_path, simulated):
    store = Store(tmp_path / "council.db")
    store.register_rubric(parse_rubric(SHAPE_RUBRIC, "test")[0])
    store.close()
    async with council_over_stdio(tmp_path, simulated) as client:
        compared = (await client.call_tool("compare_answers", {"question": "Why do leaves fall?",
                                                               "members": ["atlas", "boreal", "cirrus"]})
                    ).structured_content
        assert [a["member"] for a in compared["answers"]] == ["atlas", "boreal", "cirrus"]
        assert all(a["answer"] and a["rank"] and set(a["criteria"]) >= {"accuracy", "clarity"}
                   for a in compared["answers"])

        judged = (await client.call_tool("evaluate_answer", {
            "rubric": "default", "question": "Why is the sky blue?",
            "answer": "Rayleigh scattering: shorter wavelengths scatter more."})).structured_content
        assert judged["rubric"].startswith("default@") and isinstance(judged["passed"], bool)
        assert judged["feedback"] and {c["id"] for c in judged["criteria"]} >= {"accuracy", "relevance"}

        good = (await client.call_tool("evaluate_target", {"rubric": "shape",
                                                           "target": {"questions": ["Why?", "How?"]}})
                ).structured_content
        bad = (await client.call_tool("evaluate_target", {"rubric": "shape", "target": {"questions": [1]}})
               ).structured_content
        assert good["passed"] and not bad["passed"] and bad["feedback_summary"]
        assert [r["level_id"] for r in bad["criterion_results"]] == ["invalid"]
        assert any("is not of type 'string'" in e for e in bad["criterion_results"][0]["evidence"])

        listed = await client.list_resources()
        assert {"rubric://default", "rubric://shape@1.0.0"} <= {str(r.uri) for r in listed.resources}
        rubric = await client.read_resource("rubric://default")
        assert '"criteria"' in rubric.contents[0].text
        latest = await client.read_resource("rubric://shape")
        assert '"id": "shape"' in latest.contents[0].text


async def test_mistakes_are_tool_errors_and_the_server_keeps_serving(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        unknown = await client.call_tool("ask_council", {"question": "Why?", "members": ["atlas", "zephyr"]})
        assert unknown.is_error and "unknown members: zephyr" in unknown.content[0].text
        rubric = await client.call_tool("evaluate_answer", {"rubric": "/etc/passwd", "question": "Q", "answer": "A"})
        assert rubric.is_error and "default" in rubric.content[0].text, "names what is on offer, reads no path"
        missing = await client.call_tool("get_run", {"run_id": "nope"})
        assert missing.is_error and "no stored run 'nope'" in missing.content[0].text
        still = await client.call_tool("list_runs", {})
        assert not still.is_error and still.structured_content == {"runs": []}
        slow = await client.call_tool("ask_council", {"question": "Why?", "preset": "slow"})
        assert slow.is_error and "unknown preset 'slow'; presets: deliberate, full, quick" in slow.content[0].text
        quick = (await client.call_tool("ask_council", {"question": "Why?", "preset": "quick"})).structured_content
        assert quick["preset"] == "quick" and quick["status"] == "complete"
        # No chairman: the top-ranked answer stands, as its member wrote it. Which member that is, the judges'
        # noise decides: a simulated reviewer draws it from the review's nonce, new each run, so atlas comes first
        # in about nine runs of ten and boreal in the rest, on any machine. The ranking says which.
        top = quick["ranking"][0]["member"]
        assert quick["final_answer_by"] == top
        run = (await client.call_tool("get_run", {"run_id": quick["run_id"]})).structured_content
        assert quick["final_answer"] == next(a["content"] for a in run["answers"] if a["member"] == top)
        # atlas judges every other answer; boreal, the second judge, every answer but its own, atlas's included.
        assert {r["reviewer"]: sorted(r["order"]) for r in run["reviews"]} == {
            "atlas": ["boreal", "cirrus", "delta"], "boreal": ["atlas", "cirrus", "delta"]}
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "quick (Fast: every member answers" in tools["ask_council"].description


async def test_ask_council_against_the_fake_upstream_and_a_failed_quorum(tmp_path):
    async with FakeLLMServer() as upstream:
        for name in ("alpha", "beta", "gamma"):
            reply = council_member(f"{name}: the sky scatters blue light.")
            upstream.script(f"model-{name}", Step(reply=reply, usage={"prompt_tokens": 1000, "completion_tokens": 100}))
        alpha_price = {"price": {"input_per_mtok": 2.0, "output_per_mtok": 10.0}}  # $0.003 a call
        config = {
            "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                         "base_url": upstream.base_url("openai"), "api_key_env": "FAKE_KEY",
                         **(alpha_price if name == "alpha" else {})}
                        for name in ("alpha", "beta", "gamma")],
            "chairman": "alpha",
        }
        config_path = tmp_path / "council.yaml"
        config_path.write_text(yaml.safe_dump(config))
        env = {"COUNCIL_DB_PATH": str(tmp_path / "council.db"), "FAKE_KEY": "sk-test"}
        client = Client(StdioServerParameters(command=sys.executable, env=env,
                                              args=["-m", "council", "mcp", "--config", str(config_path)]),
                        read_timeout_seconds=60)
        async with client:
            asked = await client.call_tool("ask_council", {"question": "Why is the sky blue?"})
            assert not asked.is_error, asked.content
            assert asked.structured_content["final_answer_by"] == "alpha"
            assert len(asked.structured_content["ranking"]) == 3 and not asked.structured_content["simulated"]
            calls = len(upstream.requests)
            assert calls == 3 + 3 + 1, "3 answers, 3 reviews, 1 chairman"
            cost = asked.structured_content["cost"]
            assert cost["by_member"] == {"alpha": pytest.approx(0.009)}, "alpha's answer, review and synthesis"
            assert cost["partial"] is True and cost["unpriced"] == ["beta", "gamma"]

            upstream.script("model-beta", Step(status=401))
            upstream.script("model-gamma", Step(status=401))
            failed = await client.call_tool("ask_council", {"question": "And at night?"})
            assert failed.is_error and "could not answer" in failed.content[0].text
