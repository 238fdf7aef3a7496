"""OpenAI's moderation wire format: ``POST {base_url}/moderations`` with the answer, flags per category back.

The request is ``{"model": "omni-moderation-latest", "input": TEXT}``; the
answer is ``{"id", "model", "results": [{"flagged": bool, "categories":
{name: bool}, "category_scores": {name: float}, ...}]}``, one result per
input. Council sends one input (the answer) and reads the first result.
The endpoint reports no token usage, so the call's tokens are estimated from
the text's length (marked ``estimated``), which is what a configured price
is applied to.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import SecretStr

from council.errors import ProtocolError
from council.safety.moderation.outcome import Judgement
from council.transport.http import Endpoint, HttpRequest
from council.types import Usage

CHARS_PER_TOKEN = 4  # a rough average for English text, as for chat streams that report no usage


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


class OpenAIModerations:
    """Builds moderation requests and reads their answers."""

    name = "openai"
    default_base_url = "https://api.openai.com/v1"
    #: The endpoint writes no text: nothing is spent on output.
    max_output_tokens = 0

    def __init__(self, base_url: str | None, model: str, api_key: SecretStr | None, endpoint: Endpoint) -> None:
        self.url = f"{(base_url or self.default_base_url).rstrip('/')}/moderations"
        self.model = model
        self.api_key = api_key
        self.endpoint = endpoint

    def build_request(self, question: str, answer: str) -> HttpRequest:
        """The request classifying ``answer`` (the question is not sent: the endpoint judges one text)."""
        headers = {"Accept": "application/json"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return HttpRequest(url=self.url, json={"model": self.model, "input": answer}, headers=headers)

    def parse(self, data: dict[str, Any], question: str, answer: str) -> Judgement:
        """The judgement in a moderation answer; a ProtocolError naming what is missing or mistyped."""
        results = data.get("results")
        if not isinstance(results, list) or not results or not isinstance(results[0], dict):
            raise self._fail("response has no results[0] object")
        result = results[0]
        flagged = result.get("flagged")
        categories = result.get("categories")
        if not isinstance(flagged, bool):
            raise self._fail("response field results[0].flagged is not true or false")
        if not isinstance(categories, dict):
            raise self._fail("response field results[0].categories is not an object")
        raw_scores = result.get("category_scores")
        scores = {}
        if isinstance(raw_scores, dict):
            scores = {str(k): v for k, raw in raw_scores.items() if (v := _number(raw)) is not None}
        labels = [str(name) for name, value in categories.items() if value is True]
        usage = Usage(prompt_tokens=-(-len(answer) // CHARS_PER_TOKEN), estimated=True)
        model = data.get("model") if isinstance(data.get("model"), str) else None
        return Judgement(flagged=flagged or bool(labels), labels=labels, scores=scores, usage=usage,
                         model_version=model)

    def _fail(self, message: str) -> ProtocolError:
        return self.endpoint.error(ProtocolError, message)  # type: ignore[return-value]


__all__ = ["OpenAIModerations"]
