"""JavaScript clients against `council serve` on defaults: the Vercel AI SDK and LangChain.js, with zod schemas.

The AI SDK (``ai`` 6 with ``@ai-sdk/openai``): ``generateObject``,
``streamObject``, and ``generateText`` / ``streamText`` with ``output:
Output.object(...)``, on ``createOpenAI({baseURL}).chat(model)`` (Chat Completions) and on
the default ``openai(model)`` (the Responses API).
The AI SDK as an agent and a chat use it (``ai_sdk_agent.mjs``): a tool
loop (call, result, answer) and a second turn sent with the first turn's
messages, which on the Responses API come back as ``item_reference`` items.
LangChain.js (``@langchain/openai`` 1.x): ``ChatOpenAI.withStructuredOutput``
with its default method (``jsonSchema`` for a model named ``council``),
``functionCalling`` and ``jsonSchema``, invoked and streamed. Pinned in
tests/frameworks/js/package-lock.json, installed by scripts/framework_envs.sh.
"""

from __future__ import annotations

import shutil

import pytest

from council.storage.store import Store
from tests.frameworks.conftest import (
    JS,
    Served,
    assert_client_got_the_councils_answer,
    installed,
    require,
    run_client,
)

pytestmark = pytest.mark.slow

MODELS = ["council", "council/quick"]


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    require(path is not None, "node")
    require(installed(JS / "node_modules" / "installed-package-lock.json", JS / "package-lock.json"),
            "tests/frameworks/js/node_modules")
    assert path is not None
    return path


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("call", ["generateObject", "streamObject", "generateText", "streamText"])
@pytest.mark.parametrize("model", MODELS)
def test_ai_sdk_object(node: str, council_serve: Served, model: str, call: str, api: str) -> None:
    # "responses": the provider's default `openai(id)`, which speaks the Responses API.
    printed = run_client([node, str(JS / "ai_sdk.mjs"), council_serve.base_url, model, call, api], council_serve)
    assert_client_got_the_councils_answer(printed, council_serve)


@pytest.mark.parametrize("call", ["invoke", "stream"])
@pytest.mark.parametrize("method", ["default", "functionCalling", "jsonSchema"])
@pytest.mark.parametrize("model", MODELS)
def test_langchain_js_with_structured_output(node: str, council_serve: Served, model: str, method: str,
                                             call: str) -> None:
    printed = run_client([node, str(JS / "langchain.mjs"), council_serve.base_url, model, method, call],
                         council_serve)
    assert_client_got_the_councils_answer(printed, council_serve)


def newest_question(served: Served) -> list[tuple[str, str]]:
    """The conversation the newest run was asked, as (role, text) pairs, read from the server's database."""
    store = Store(str(served.db))
    try:
        result = store.get(store.list_runs(limit=1)[0].run_id)
    finally:
        store.close()
    assert result is not None and result.status == "complete", result
    return [(message.role, str(message.content)) for message in result.question]


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("mode", ["generate", "stream"])
@pytest.mark.parametrize("model", MODELS)
def test_ai_sdk_tool_loop(node: str, council_serve: Served, model: str, mode: str, api: str) -> None:
    printed = run_client([node, str(JS / "ai_sdk_agent.mjs"), council_serve.base_url, model, "toolLoop", mode, api],
                         council_serve)
    assert printed["steps"] == ["tool-calls", "stop"], printed
    (city,) = printed["cities"]
    assert city.strip() and printed["text"].strip()
    # The answering run read the tool's result: the loop went through the council, not around it.
    asked = newest_question(council_serve)
    assert asked[0] == ("user", "What is the weather in Paris now?")
    assert any("sunny, 20 degrees" in text for _, text in asked[1:]), asked


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("mode", ["generate", "stream"])
@pytest.mark.parametrize("model", MODELS)
def test_ai_sdk_second_turn(node: str, council_serve: Served, model: str, mode: str, api: str) -> None:
    printed = run_client([node, str(JS / "ai_sdk_agent.mjs"), council_serve.base_url, model, "turns", mode, api],
                         council_serve)
    if api == "responses":
        assert printed["references"] >= 1, "the SDK sent the first turn by reference (store on), as it does"
    assert printed["second"].strip()
    assert newest_question(council_serve) == [("user", "Why is the sky blue?"), ("assistant", printed["first"]),
                                              ("user", "And why are sunsets red?")]
