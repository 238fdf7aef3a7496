"""Starting ``council serve``'s app for page and API tests, with runs and conversations in one file."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer
from tests.server.conftest import MEMBERS, RunningServer, serve

WEB_KEY = "web-page-key-456"


def web_config(fake: FakeLLMServer, db: Path, **server: object) -> CouncilConfig:
    """Three members on the fake, alpha chairs, a ``quick`` preset; runs and conversations in ``db``."""
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}", "base_url": fake.base_url("openai")}
                    for name in MEMBERS],
        "chairman": "alpha",
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
        "server": {"max_body_bytes": 64 * 1024, "keepalive_s": 1, **server},
        "storage": {"path": str(db)},
        "councils": {"quick": {"description": "beta alone scores the answers; no chairman", "chairman": "none",
                               "review": "judge", "judge": "beta"}},
    })


async def start_web(fake: FakeLLMServer, db: Path, keys: str | None = None,
                    **server: object) -> tuple[web.AppRunner, RunningServer]:
    """Start ``council serve``'s app on 127.0.0.1:0 with a file database (the caller scripts the fake)."""
    return await serve(fake, web_config(fake, db, **server), Store(db), keys)
