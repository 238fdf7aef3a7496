"""MCP's ask_council with an output_schema: the answer as one JSON value valid for it, in the structured content."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from tests.mcp_server.test_stdio import council_over_stdio

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
          "required": ["city", "population"], "additionalProperties": False}


async def test_ask_council_with_an_output_schema_returns_the_object(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        result = await client.call_tool("ask_council", {"question": "Name a large city.", "output_schema": SCHEMA})
        assert not result.is_error, result.content
        structured = result.structured_content
        assert structured is not None
        Draft202012Validator(SCHEMA).validate(structured["output"])
        assert json.loads(structured["final_answer"]) == structured["output"]
        refused = await client.call_tool("ask_council", {"question": "Q?", "output_schema": {"type": 5}})
        assert refused.is_error and "not a valid JSON Schema" in refused.content[0].text
