"""`council serve` driven through LiteLLM's ``openai/`` provider, plain and streamed, council and pass-through.

Most tests run against a real ``python -m council serve`` process (three simulated members, an API key required)
and check what LiteLLM hands back against the run the server stored (``GET /v1/council/runs/{id}``). One test
uses the in-process scripted server to see which request parameters reach a member through LiteLLM.

LiteLLM must never reach the network here: its model price map is read from the copy it ships
(``LITELLM_LOCAL_MODEL_COST_MAP``, set before the import), and an audit hook records every connection or name
look-up to a non-loopback host, at import and during each test, so that any such call fails the test.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from council.testing.scripted import CHAIRMAN_PREFIX
from tests.server.conftest import API_KEY, RunningServer
from tests.waiting import PROCESS_S

OUTSIDE_CALLS: list[str] = []
_watching = True


def _is_local(host: object) -> bool:
    if host is None:
        return True
    name = (host.decode(errors="replace") if isinstance(host, bytes | bytearray) else str(host)).strip("[]").lower()
    if name in ("localhost", "localhost.localdomain", ""):
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _watch_network(event: str, args: tuple[Any, ...]) -> None:
    """Record connections and look-ups that leave the machine (an audit hook: it observes, it changes nothing)."""
    if not _watching:
        return
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and not _is_local(address[0]):
            OUTSIDE_CALLS.append(f"connect {address!r}")
    elif event == "socket.getaddrinfo" and not _is_local(args[0]):
        OUTSIDE_CALLS.append(f"getaddrinfo {args[0]!r}")


sys.addaudithook(_watch_network)
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import litellm  # noqa: E402  (after the environment above: no price map from the network)
from litellm.exceptions import AuthenticationError, NotFoundError  # noqa: E402

_watching = False
IMPORT_CALLS = list(OUTSIDE_CALLS)
litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner on every expected error

QUESTION = [{"role": "user", "content": "What is six times seven?"}]
SERVE_KEY = "litellm-test-key-456"
RUN_ID_HEADER = "llm_provider-x-council-run-id"  # LiteLLM's name for the server's x-council-run-id header
# Simulated members (no upstream at all), quick ones: the real `council serve` with its stages, in about 0.1 s a run.
SIMULATED_COUNCIL = """
members:
  - {name: m0, provider: simulated, model: sim-0, persona: {latency_ms: 5}}
  - {name: m1, provider: simulated, model: sim-1, persona: {latency_ms: 5}}
  - {name: m2, provider: simulated, model: sim-2, persona: {latency_ms: 5}}
chairman: m0
"""

# LiteLLM's own types are TypedDicts with ReadOnly items (its message and GitHub Copilot types among them); when
# LiteLLM builds pydantic TypeAdapters over them, at its first calls, pydantic warns about each class. The council
# uses no ReadOnly TypedDict, so in this module only LiteLLM's classes raise it; no other warning is let through.
# And LiteLLM's stream handler reads pydantic attributes off each chunk's delta through the instance
# (litellm/litellm_core_utils/model_response_utils.py, `_is_delta_non_empty`), which pydantic >= 2.11 deprecates.
pytestmark = [
    pytest.mark.filterwarnings(r"ignore:Items? .* on TypedDict class '\w+' (is|are) using the `ReadOnly` qualifier"
                               ":UserWarning:pydantic._internal._generate_schema"),
    pytest.mark.filterwarnings(r"ignore:Accessing the '\w+' attribute on the instance is deprecated"
                               ":DeprecationWarning:litellm.litellm_core_utils.model_response_utils"),
]


@pytest.fixture(autouse=True)
def no_outside_network() -> Iterator[None]:
    """Fail any test during which something (LiteLLM included) looked up or connected to a non-loopback host."""
    global _watching
    assert IMPORT_CALLS == [], f"importing litellm reached the network: {IMPORT_CALLS}"
    OUTSIDE_CALLS.clear()
    _watching = True
    try:
        yield
    finally:
        _watching = False
    assert OUTSIDE_CALLS == [], f"the test reached the network: {OUTSIDE_CALLS}"


@dataclass
class Serve:
    """A running ``council serve`` process."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base_url(self) -> str:
        return self.url + "/v1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def council_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """``python -m council serve --config`` on a free loopback port: a simulated council, API key required."""
    folder = tmp_path_factory.mktemp("litellm-serve")
    port, log = free_port(), folder / "serve.log"
    config = folder / "council.yaml"
    config.write_text(SIMULATED_COUNCIL)
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(folder / "runs.db"),
           "COUNCIL_API_KEYS": SERVE_KEY}
    with log.open("wb") as sink:  # a file, not a pipe: nobody reads the access log while the tests run
        process = subprocess.Popen(
            [sys.executable, "-m", "council", "serve", "--config", str(config), "--port", str(port)],
            env=env, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError):
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"council serve never became healthy:\n{log.read_text()[-2000:]}")
            time.sleep(0.05)
        yield Serve(url, process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=PROCESS_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
    assert code == 0, f"council serve exited {code}:\n{log.read_text()[-2000:]}"


async def stored_run(serve: Serve, run_id: str) -> dict[str, Any]:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {SERVE_KEY}"}) as http, \
            http.get(f"{serve.base_url}/council/runs/{run_id}") as response:
        assert response.status == 200, await response.text()
        run: dict[str, Any] = await response.json()
    assert run["run_id"] == run_id and run["status"] == "complete"
    return run


async def model_ids(serve: Serve) -> list[str]:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {SERVE_KEY}"}) as http, \
            http.get(f"{serve.base_url}/models") as response:
        assert response.status == 200
        return [m["id"] for m in (await response.json())["data"]]


def call(serve: Serve, model: str = "council", **kwargs: Any) -> dict[str, Any]:
    return {"model": f"openai/{model}", "api_base": serve.base_url, "api_key": SERVE_KEY, "messages": QUESTION,
            "num_retries": 0, "timeout": 30, **kwargs}


async def test_council_completion_is_the_stored_final_answer(council_serve: Serve) -> None:
    response = await litellm.acompletion(**call(council_serve))
    assert isinstance(response, litellm.ModelResponse)
    content = response.choices[0].message.content
    assert isinstance(content, str) and content.strip()
    assert response.choices[0].finish_reason == "stop"
    assert response.model == "council"
    # The run id comes back twice: in the top-level `council` block (kept by LiteLLM) and in the header.
    summary = response.council
    run_id = response._hidden_params["additional_headers"][RUN_ID_HEADER]
    assert summary["run_id"] == run_id and summary["simulated"] is True and summary["stored"] is True
    run = await stored_run(council_serve, run_id)
    assert content == run["final_answer"]["content"]
    assert [r["member"] for r in summary["ranking"]] == [r["member"] for r in run["ranking"]]
    usage = response.usage
    assert usage.total_tokens == run["usage"]["total_tokens"] > 0
    assert usage.prompt_tokens == run["usage"]["prompt_tokens"]
    assert usage.completion_tokens == run["usage"]["completion_tokens"]


async def test_council_stream_joins_to_the_stored_final_answer(council_serve: Serve) -> None:
    stream = await litellm.acompletion(**call(council_serve, stream=True, stream_options={"include_usage": True}))
    chunks = [chunk async for chunk in stream]
    run_id = stream._hidden_params["additional_headers"][RUN_ID_HEADER]
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
    run = await stored_run(council_serve, run_id)
    assert content.strip() and content == run["final_answer"]["content"]
    # Stage progress arrives as reasoning, apart from the answer.
    assert "Ranking: 1. " + run["ranking"][0]["member"] in reasoning
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
    usage = [c.usage for c in chunks if getattr(c, "usage", None) is not None]
    assert usage, "stream_options.include_usage: the usage chunk reaches LiteLLM's caller"
    assert usage[-1].total_tokens == run["usage"]["total_tokens"] > 0
    assert usage[-1].prompt_tokens == run["usage"]["prompt_tokens"]
    assert usage[-1].completion_tokens == run["usage"]["completion_tokens"]


async def test_member_pass_through_plain_and_streamed(council_serve: Serve) -> None:
    members = [m for m in await model_ids(council_serve) if m.startswith("member/")]
    assert members, "the server lists its members as member/NAME"
    member = members[0]
    response = await litellm.acompletion(**call(council_serve, member))
    content = response.choices[0].message.content
    assert isinstance(content, str) and content.strip()
    assert response.model == member
    assert RUN_ID_HEADER not in response._hidden_params["additional_headers"], "a pass-through call runs no council"
    assert response.usage.total_tokens > 0
    stream = await litellm.acompletion(**call(council_serve, member, stream=True,
                                              stream_options={"include_usage": True}))
    chunks = [chunk async for chunk in stream]
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == content, "a simulated member's answer is seeded by the question: streamed, it is the same"
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
    assert any(getattr(c, "usage", None) is not None and c.usage.total_tokens > 0 for c in chunks)


async def test_wrong_key_is_litellms_authentication_error(council_serve: Serve) -> None:
    with pytest.raises(AuthenticationError) as caught:
        await litellm.acompletion(**call(council_serve, api_key="not-the-key"))
    assert caught.value.status_code == 401


@pytest.mark.parametrize("model", ["gpt-4", "member/nobody", "council/nosuchpreset"])
async def test_unknown_model_is_litellms_not_found_error(council_serve: Serve, model: str) -> None:
    with pytest.raises(NotFoundError) as caught:
        await litellm.acompletion(**call(council_serve, model))
    assert caught.value.status_code == 404
    assert f"'{model}'" in caught.value.message


async def test_parameters_litellm_sends_reach_the_member(server: RunningServer) -> None:
    """In process, with scripted members: what LiteLLM forwards is what the member receives."""
    response = await litellm.acompletion(
        model="openai/member/beta", api_base=server.base_url, api_key=API_KEY, num_retries=0,
        messages=[{"role": "system", "content": "Be brief."}, *QUESTION],
        temperature=0.3, max_tokens=50, stop=["\n\n"], seed=7)
    assert response.choices[0].message.content == "beta thinks 42. quality=7"
    (sent,) = server.fake.requests_for("model-beta")
    assert sent.messages[0] == {"role": "system", "content": "Be brief."}
    assert sent.body["temperature"] == 0.3 and sent.body["max_tokens"] == 50
    assert sent.body["stop"] == ["\n\n"] and sent.body["seed"] == 7
    stream = await litellm.acompletion(model="openai/member/beta", api_base=server.base_url, api_key=API_KEY,
                                       num_retries=0, messages=QUESTION, stream=True)
    assert "".join([c.choices[0].delta.content or "" async for c in stream if c.choices]) == "beta thinks 42. quality=7"
    assert server.fake.requests_for("model-beta")[-1].stream
    assert len(server.fake.requests_for("model-alpha")) == 0, "a pass-through call runs no council"
    council = await litellm.acompletion(model="openai/council", api_base=server.base_url, api_key=API_KEY,
                                        num_retries=0, messages=QUESTION)
    assert council.choices[0].message.content == CHAIRMAN_PREFIX + "model-alpha"
    stored = server.store.get(council.council["run_id"])
    assert stored is not None and council.usage.total_tokens == stored.usage.total_tokens > 0

