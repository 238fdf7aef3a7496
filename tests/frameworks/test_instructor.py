"""instructor 1.17 against `council serve` on defaults, in its own venv (it cannot share the project's openai).

``instructor.from_openai(OpenAI(base_url=...))`` in each mode that speaks
OpenAI's chat completions: the function-calling modes (``TOOLS``,
``TOOLS_STRICT``: a forced tool call), ``JSON`` (``json_object`` plus the
schema in the prompt), ``JSON_SCHEMA`` (``response_format`` json_schema) and
``MD_JSON`` (the schema in the prompt, a fenced answer); and ``RESPONSES_TOOLS``
on the Responses API (a forced tool call with the same schema as ``text.format``
beside it, as instructor sends it); ``create`` and the streamed
``create_partial``, on ``council`` and ``council/quick``.
"""

from __future__ import annotations

import pytest

from tests.frameworks.conftest import (
    HERE,
    INSTRUCTOR_VENV,
    Served,
    assert_client_got_the_councils_answer,
    installed,
    require,
    run_client,
)

pytestmark = pytest.mark.slow

MODES = ["TOOLS", "TOOLS_STRICT", "JSON", "JSON_SCHEMA", "MD_JSON", "RESPONSES_TOOLS"]


@pytest.fixture(scope="module")
def python() -> str:
    require(installed(INSTRUCTOR_VENV / "installed-requirements.txt", HERE / "instructor-requirements.txt"),
            "instructor's venv (.venv-frameworks/instructor)")
    return str(INSTRUCTOR_VENV / "bin" / "python")


@pytest.mark.parametrize("call", ["create", "partial"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model", ["council", "council/quick"])
def test_instructor_response_model(python: str, council_serve: Served, model: str, mode: str,
                                   call: str) -> None:
    printed = run_client([python, str(HERE / "instructor_client.py"), council_serve.base_url, model, mode, call],
                         council_serve)
    assert_client_got_the_councils_answer(printed, council_serve)
