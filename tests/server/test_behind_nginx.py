"""Behind a real reverse proxy that cuts silences, every route that waits on a model still answers (issue 43).

nginx from Debian's package runs as a subprocess in front of an in-process
``council serve`` whose members (on the fake upstream) take 20 s a call,
with ``proxy_read_timeout 15s`` (nginx's default is 60 s, as are AWS ALB's
and many gateways' idle timeouts: a slower council behind them was
answered 504) and ``proxy_buffering off``, as people configure it for
streams. ``server.keepalive_s`` is 5: nothing the server sends may leave a
silence that long. The test asserts that answers arrive, never how fast.
In CI (``CI=true``) a missing nginx fails the test; elsewhere it skips.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer
from council.testing.scripted import council_member
from tests.server.conftest import serve
from tests.server.test_chat_apps import TITLE_TASK
from tests.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

MEMBER_LATENCY_S = 20  # longer than the proxy's read timeout
PROXY_READ_TIMEOUT_S = 15
KEEPALIVE_S = 5
QUESTION = [{"role": "user", "content": "What is 6 x 7?"}]
INSTALL_HINT = "nginx not found: install it (Debian/Ubuntu: apt-get install nginx); .ci/run does"

NGINX_CONF = """
daemon off;
worker_processes 1;
{user}
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{ worker_connections 64; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_read_timeout {read_timeout}s;
            proxy_buffering off;
        }}
    }}
}}
"""


def find_nginx() -> str:
    """Debian's nginx (in /usr/sbin, off a non-root PATH); when missing a skip, or in CI a failure."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx")
                                           if Path(p).exists()), None)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(INSTALL_HINT)
        pytest.skip(INSTALL_HINT)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Nginx:
    url: str
    tmp: Path

    def log(self) -> str:
        return "\n".join(f"--- {name}\n{(self.tmp / name).read_text(errors='replace')[-3000:]}"
                         for name in ("error.log", "access.log") if (self.tmp / name).exists())


def start_nginx(binary: str, tmp: Path, upstream: int) -> tuple[subprocess.Popen[bytes], Nginx]:
    """nginx in the foreground (``daemon off;``) on a free loopback port, everything it writes under ``tmp``."""
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""  # as root its workers would run as nobody, shut out of tmp
    conf = tmp / "nginx.conf"
    conf.write_text(NGINX_CONF.format(user=user, tmp=tmp, port=port, upstream=upstream,
                                      read_timeout=PROXY_READ_TIMEOUT_S))
    with (tmp / "stderr.log").open("wb") as stderr:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen([binary, "-p", str(tmp), "-c", str(conf), "-e", str(tmp / "error.log")],
                                   stdout=subprocess.DEVNULL, stderr=stderr)
    return process, Nginx(f"http://127.0.0.1:{port}", tmp)


def nginx_said(process: subprocess.Popen[bytes]) -> str:
    folder = Path(str(process.args[2]))
    return "\n".join((folder / name).read_text(errors="replace")[-3000:] for name in ("stderr.log", "error.log")
                     if (folder / name).exists())


async def listening(port: int, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        raise AssertionError(f"nginx exited {process.returncode}: {process.args}\n{nginx_said(process)}")
    try:
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


@pytest.fixture
def nginx_binary() -> str:
    return find_nginx()


@dataclass
class Stack:
    """The proxy, and the council behind it."""

    proxy: Nginx
    council_url: str


@pytest.fixture
async def stack(fake_llm: FakeLLMServer, nginx_binary: str, tmp_path: Path) -> AsyncIterator[Stack]:
    # Every call takes 20 s: a member's answer, a review, the chairman's synthesis, a side task.
    fake_llm.default_latency_s = MEMBER_LATENCY_S
    fake_llm.default_reply = council_member("42, since 6 x 7 = 42.")
    config = CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                     "base_url": fake_llm.base_url("openai")} for name in ("alpha", "beta")],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
        "stages": {"stage_deadline_s": 120, "member_timeout_s": 90},
        "server": {"keepalive_s": KEEPALIVE_S, "shutdown_grace_s": 0},
    })
    store = Store(":memory:")
    runner, running = await serve(fake_llm, config, store, None)
    upstream = int(running.url.rsplit(":", 1)[1])
    process, proxy = start_nginx(nginx_binary, tmp_path, upstream)
    try:
        port = int(proxy.url.rsplit(":", 1)[1])
        await wait_until(lambda: listening(port, process), what="nginx to listen", timeout_s=30)
        yield Stack(proxy, running.url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        await runner.cleanup()
        store.close()


# -- the routes, each through the proxy ------------------------------------------------------------------------------
def sdk(stack: Stack) -> openai.AsyncOpenAI:
    # No retries: a 504 must show, not be retried into a pass.
    return openai.AsyncOpenAI(base_url=stack.proxy.url + "/v1", api_key="unused", max_retries=0, timeout=300)


async def council_plain(stack: Stack) -> str:
    async with sdk(stack) as client:
        completion = await client.chat.completions.create(model="council", messages=QUESTION)
    assert completion.choices is not None, f"no answer: {completion}"
    assert completion.choices[0].message.content and completion.choices[0].finish_reason == "stop"
    assert completion.model_extra and completion.model_extra["council"]["status"] == "complete"
    return "answered"


async def council_streamed(stack: Stack) -> str:
    async with sdk(stack) as client:
        stream = await client.chat.completions.create(model="council", messages=QUESTION, stream=True)
        chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text and chunks[-1].choices[0].finish_reason == "stop"
    return "answered"


async def member_plain(stack: Stack) -> str:
    async with sdk(stack) as client:
        completion = await client.chat.completions.create(model="member/beta", messages=QUESTION)
    assert completion.choices is not None, f"no answer: {completion}"
    assert completion.choices[0].message.content == "42, since 6 x 7 = 42."
    return "answered"


async def member_streamed(stack: Stack) -> str:
    async with sdk(stack) as client:
        stream = await client.chat.completions.create(model="member/beta", messages=QUESTION, stream=True)
        chunks = [chunk async for chunk in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "42, since 6 x 7 = 42."
    return "answered"


async def side_task(stack: Stack) -> str:
    # Open WebUI's title request to the council model: one member answers it, the task model (the chairman).
    async with sdk(stack) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model="council", messages=[{"role": "user", "content": TITLE_TASK}])
    completion = raw.parse()
    assert raw.headers["x-council-task-model"] == "member/alpha", "announced before the answer started"
    assert completion.choices is not None and completion.choices[0].message.content
    return "answered"


async def page_api(stack: Stack) -> str:
    """The page: a conversation, a question, and its run's events followed to the end over SSE."""
    async with aiohttp.ClientSession(stack.proxy.url, timeout=aiohttp.ClientTimeout(total=300)) as http:
        async with http.post("/api/conversations", json={}) as response:
            assert response.status == 201, await response.text()
            conversation = await response.json()
        async with http.post(f"/api/conversations/{conversation['id']}/messages",
                             json={"content": "What is 6 x 7?"}) as response:
            assert response.status in (200, 202), await response.text()  # 200: it started before its run slot came
            posted = json.loads(await response.text())
        kinds: list[str] = []
        async with http.get(posted["events_url"]) as response:
            assert response.status == 200, await response.text()
            async for line in response.content:
                if line.startswith(b"data: ") and (event := json.loads(line[6:])).get("kind"):
                    kinds.append(event["kind"])
        async with http.get(f"/api/runs/{posted['run_id']}") as response:
            assert response.status == 200
            run = await response.json()
    assert run["finished"] and "result" in kinds, f"the run's events: {kinds}"
    return "answered"


async def responses_plain(stack: Stack) -> str:
    async with sdk(stack) as client:
        response = await client.responses.create(model="council", input="What is 6 x 7?")
    assert response.status == "completed" and response.output_text
    return "answered"


async def responses_streamed(stack: Stack) -> str:
    async with sdk(stack) as client, client.responses.stream(model="member/beta", input="What is 6 x 7?") as events:
        final = await events.get_final_response()
    assert final.output_text == "42, since 6 x 7 = 42."
    return "answered"


ROUTES = {"council": council_plain, "council streamed": council_streamed, "member/NAME": member_plain,
          "member/NAME streamed": member_streamed, "side task": side_task, "page API": page_api,
          "Responses API": responses_plain, "Responses API streamed": responses_streamed}


async def test_every_route_answers_through_a_proxy_that_cuts_silences(stack: Stack):
    # All at once: each waits at least 20 s on members, and a council run three times that.
    outcomes: list[Any] = await asyncio.gather(*(route(stack) for route in ROUTES.values()), return_exceptions=True)
    failed = {name: f"{type(outcome).__name__}: {outcome}" for name, outcome in zip(ROUTES, outcomes, strict=True)
              if isinstance(outcome, BaseException)}
    assert not failed, f"through nginx: {json.dumps(failed, indent=1)}\n{stack.proxy.log()}"
    assert " 504 " not in (stack.proxy.tmp / "access.log").read_text()
