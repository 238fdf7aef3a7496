"""Fixtures: a council server on a random loopback port, its members on the fake LLM server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from council import Council
from council.config import CouncilConfig
from council.server.app import create_app
from council.server.listen import CappedSite, start_site
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.waiting import wait_until

MEMBERS = {"alpha": 9, "beta": 7, "gamma": 5}
API_KEY = "test-council-key-123"


@dataclass
class RunningServer:
    """A started server and what tests need to reach it."""

    url: str
    fake: FakeLLMServer
    council: Council
    store: Store
    #: The listener: its count of open connections is what a test waits on after opening or closing some.
    site: CappedSite

    @property
    def base_url(self) -> str:
        return self.url + "/v1"


def quality_judge(text: str) -> int:
    marker = text.rsplit("quality=", 1)
    return int(marker[1][:1]) if len(marker) == 2 and marker[1][:1].isdigit() else 1


def server_config(fake: FakeLLMServer, **server: object) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}", "base_url": fake.base_url("openai")}
                    for name in MEMBERS],
        "chairman": "alpha",
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
        "server": {"max_body_bytes": 64 * 1024, **server},
    })


def script(fake: FakeLLMServer) -> None:
    for name, quality in MEMBERS.items():
        fake.script(f"model-{name}", Step(reply=council_member(f"{name} thinks 42. quality={quality}", quality_judge)))


async def start_server(
    fake: FakeLLMServer, keys: str | None = API_KEY, **server: object
) -> tuple[web.AppRunner, RunningServer]:
    return await serve(fake, server_config(fake, **server), Store(":memory:"), keys)


async def serve(fake: FakeLLMServer, config: CouncilConfig, store: Store,
                keys: str | None) -> tuple[web.AppRunner, RunningServer]:
    """Run the server app for ``config`` on 127.0.0.1:0, members on ``fake``."""
    council = Council(config, store=store, environ={})
    app = create_app(config, environ={"COUNCIL_API_KEYS": keys} if keys else {}, council=council)
    # The same listener as `council serve`: connection cap, header and body deadlines.
    runner, site = await start_site(app, config.server, "127.0.0.1", 0)
    return runner, RunningServer(f"http://127.0.0.1:{site.port}", fake, council, store, site)


@pytest.fixture
async def server(fake_llm: FakeLLMServer) -> AsyncIterator[RunningServer]:
    """A council server requiring API_KEY, with three scripted members."""
    script(fake_llm)
    runner, running = await start_server(fake_llm)
    yield running
    await runner.cleanup()
    running.store.close()


async def health_when(url: str, condition: Callable[[dict[str, Any]], bool], timeout_s: float = 10) -> dict[str, Any]:
    """Poll ``/healthz`` until ``condition(health)`` holds (instead of sleeping and hoping); fail after the timeout."""
    health: dict[str, Any] = {}
    async with aiohttp.ClientSession() as http:

        async def reached() -> bool:
            nonlocal health
            async with http.get(url + "/healthz") as response:
                health = await response.json()
            return condition(health)

        await wait_until(reached, what=lambda: f"/healthz to reach the expected state (last: {health})",
                         timeout_s=timeout_s)
    return health
