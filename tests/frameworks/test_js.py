"""JavaScript clients against `council serve` on defaults: the Vercel AI SDK and LangChain.js, with zod schemas.

The AI SDK (``ai`` 6 with ``@ai-sdk/openai``): ``generateObject``,
``streamObject``, and ``generateText`` / ``streamText`` with ``output:
Output.object(...)``, on ``createOpenAI({baseURL}).chat(model)`` (Chat Completions) and on
the default ``openai(model)`` (the Responses API).
LangChain.js (``@langchain/openai`` 1.x): ``ChatOpenAI.withStructuredOutput``
with its default method (``jsonSchema`` for a model named ``council``),
``functionCalling`` and ``jsonSchema``, invoked and streamed. Pinned in
tests/frameworks/js/package-lock.json, installed by scripts/framework_envs.sh.
"""

from __future__ import annotations

import shutil

import pytest

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
