"""instructor against `council serve`, as its docs show: run with .venv-frameworks/instructor's python.

    python instructor_client.py BASE_URL MODEL MODE create|partial

Prints one JSON object: ``{"city": <the validated City>, "updates": <how many objects instructor yielded>}``
(``create``: one; ``create_partial``: one per partial object, the last one complete). This file runs in
instructor's own venv (see scripts/framework_envs.sh), so it imports nothing from the project.
"""

from __future__ import annotations

import json
import sys

import instructor
from openai import OpenAI
from pydantic import BaseModel, Field

QUESTION = "Name a large city and a few words about it."


class City(BaseModel):
    name: str = Field(min_length=1)
    population: int = Field(ge=1)
    tags: list[str] = Field(min_length=1)


def main(base_url: str, model: str, mode: str, call: str) -> None:
    client = instructor.from_openai(OpenAI(base_url=base_url, api_key="unused", max_retries=0),
                                    mode=instructor.Mode[mode])
    messages = [{"role": "user", "content": QUESTION}]
    # The RESPONSES_* modes speak the Responses API (``input`` for messages); the others chat completions.
    api = client.responses if mode.startswith("RESPONSES") else client.chat.completions
    asked = {"input": messages} if mode.startswith("RESPONSES") else {"messages": messages}
    # max_retries=0: a reply that does not validate is an error here, not a second request.
    if call == "create":
        city = api.create(model=model, response_model=City, max_retries=0, **asked)
        updates = 1
    else:
        updates = 0
        for partial in api.create_partial(model=model, response_model=City, max_retries=0, **asked):
            updates += 1
            city = partial  # each one is the object so far; the last one is complete
    print(json.dumps({"city": city.model_dump(), "updates": updates}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
