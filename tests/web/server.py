"""Starting ``council serve``'s app for page and API tests, with runs and conversations in one file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aiohttp import web

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import MEMBERS, RunningServer, quality_judge, serve

WEB_KEY = "web-page-key-456"
# At these prices a call of CALL_USAGE's tokens costs exactly $0.003: 1000 x $2 + 100 x $10, per million.
PRICE = {"input_per_mtok": 2.0, "output_per_mtok": 10.0}
CALL_USAGE = {"prompt_tokens": 1000, "completion_tokens": 100}


def script_usage(fake: FakeLLMServer) -> None:
    """Script the three members as :func:`tests.server.conftest.script` does, every call reporting CALL_USAGE."""
    for name, quality in MEMBERS.items():
        fake.script(f"model-{name}", Step(reply=council_member(f"{name} thinks 42. quality={quality}", quality_judge),
                                          usage=dict(CALL_USAGE)))


def web_config(fake: FakeLLMServer, db: Path, *, prices: Mapping[str, Mapping[str, float]] | None = None,
               stages: Mapping[str, float] | None = None, **server: object) -> CouncilConfig:
    """Three members on the fake, alpha chairs, a ``quick`` preset; runs and conversations in ``db``.

    ``prices`` gives members a ``price`` by name (``{"input_per_mtok": ..., "output_per_mtok": ...}``).
    """
    prices = prices or {}
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}", "base_url": fake.base_url("openai"),
                     **({"price": dict(prices[name])} if name in prices else {})}
                    for name in MEMBERS],
        "chairman": "alpha",
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5, **(stages or {})},
        "server": {"max_body_bytes": 64 * 1024, "keepalive_s": 1, **server},
        "storage": {"path": str(db)},
        "councils": {"quick": {"description": "beta alone scores the answers; no chairman", "chairman": "none",
                               "review": "judge", "judge": "beta"}},
    })


async def start_web(fake: FakeLLMServer, db: Path, keys: str | None = None, *,
                    prices: Mapping[str, Mapping[str, float]] | None = None,
                    stages: Mapping[str, float] | None = None,
                    **server: object) -> tuple[web.AppRunner, RunningServer]:
    """Start ``council serve``'s app on 127.0.0.1:0 with a file database (the caller scripts the fake)."""
    return await serve(fake, web_config(fake, db, prices=prices, stages=stages, **server), Store(db), keys)
