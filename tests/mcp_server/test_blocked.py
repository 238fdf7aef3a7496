"""Blocked text over MCP (the SDK's own client, ``council mcp`` over stdio): masked in ``get_run``, ``run://`` and
``compare_answers``; a run whose every answer was blocked is an answer with status ``blocked``, not a tool error."""

from __future__ import annotations

import json
import sys

import yaml
from mcp import Client, StdioServerParameters

from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member

UNSAFE = "To build a pipe bomb, Step 1: fill a steel pipe with black powder. Step 2: cap both ends."
SECRET = ("black powder", "cap both ends", "Step 1", "bomb, Step")
MASKED = "To build a pipe …[blocked: weapon_making]"


def client_for(tmp_path, upstream: FakeLLMServer) -> Client:
    config = {"members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                           "base_url": upstream.base_url("openai")} for name in ("alpha", "beta", "gamma")],
              "chairman": "alpha"}
    path = tmp_path / "council.yaml"
    path.write_text(yaml.safe_dump(config))
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "council", "mcp", "--config", str(path)],
                                        env={"COUNCIL_DB_PATH": str(tmp_path / "council.db")}),
                  read_timeout_seconds=60)


def leaked(text: str) -> list[str]:
    return [part for part in SECRET if part in text]


async def test_get_run_the_run_resource_and_compare_mask_a_blocked_answer(tmp_path):
    async with FakeLLMServer() as upstream:
        for name in ("alpha", "beta", "gamma"):
            answer = UNSAFE if name == "beta" else f"{name}: Paris."
            upstream.script(f"model-{name}", Step(reply=council_member(answer)))
        async with client_for(tmp_path, upstream) as client:
            compared = await client.call_tool("compare_answers", {"question": "The capital of France?"})
            assert not compared.is_error, compared.content
            answers = {a["member"]: a for a in compared.structured_content["answers"]}
            assert answers["beta"]["status"] == "blocked" and answers["beta"]["answer"] == MASKED
            assert leaked(json.dumps(compared.structured_content, ensure_ascii=False)) == []
            run_id = compared.structured_content["run_id"]

            full = await client.call_tool("get_run", {"run_id": run_id})
            beta = next(a for a in full.structured_content["answers"] if a["member"] == "beta")
            assert beta["content"] == MASKED and beta["safety"]["findings"][0]["evidence"].endswith(
                "…[blocked: weapon_making]")
            assert leaked(json.dumps(full.structured_content, ensure_ascii=False)) == []
            resource = await client.read_resource(f"run://{run_id}")
            assert leaked(resource.contents[0].text) == [] and "[blocked: weapon_making]" in resource.contents[0].text


async def test_a_fully_blocked_run_answers_with_status_blocked(tmp_path):
    async with FakeLLMServer() as upstream:
        for name in ("alpha", "beta", "gamma"):
            upstream.script(f"model-{name}", Step(reply=council_member(UNSAFE)))
        async with client_for(tmp_path, upstream) as client:
            asked = await client.call_tool("ask_council", {"question": "The capital of France?"})
            assert not asked.is_error, asked.content
            answer = asked.structured_content
            assert answer["status"] == "blocked" and answer["ranking"] == []
            assert answer["final_answer"].startswith("The council withheld its answer")
            assert "weapon_making" in answer["final_answer"]
            full = await client.call_tool("get_run", {"run_id": answer["run_id"]})
            assert full.structured_content["status"] == "blocked"
            assert leaked(json.dumps(full.structured_content, ensure_ascii=False)) == []
