"""Shared fixtures: the fake LLM server on 127.0.0.1 and the shared transport."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import structlog.dev
from hypothesis import settings

from council.config import MemberConfig, RetryPolicy, TransportConfig
from council.providers import Provider, build_provider
from council.testing.fake_llm import FakeLLMServer
from council.testing.postgres import PostgresServer, require_pg_bindir
from council.transport.http import Transport

# Tests do not assert timings: hypothesis's per-example deadline would fail a property on a busy machine
# (parallel workers, CI) for being slow, not for being wrong.
settings.register_profile("council", deadline=None)
settings.load_profile("council")

# council.logs renders console logs with structlog's ConsoleRenderer(colors=False), whose exception formatter is
# Rich's traceback with every frame's locals: for a stage that crashes inside a run (a logged `*_crashed` error,
# exc_info=True) that is tables of RunContext, config and messages, nested per frame, and took 30 to 150 s of CPU
# here (tests/pipeline/test_deliberation_stage.py hit the 60 s timeout). The tests' own process keeps Rich's
# traceback but without the locals; no test reads them. Commands the tests start as processes are not changed.
structlog.dev.rich_monochrome_traceback.show_locals = False

# Short waits keep the retry tests fast while exercising the same code paths.
FAST_RETRY = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=0.05, jitter_s=0.01)


@pytest.fixture(autouse=True, scope="session")
def private_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test (and every command it starts) keeps its default database away from the user's own.

    A config without ``storage:`` uses ``council.db`` under the data directory:
    the suite must neither read nor migrate the developer's real runs.
    """
    import os

    home = tmp_path_factory.mktemp("xdg-data")
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(home)
    yield home
    if before is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = before


@pytest.fixture
async def fake_llm() -> AsyncIterator[FakeLLMServer]:
    """A started fake upstream speaking OpenAI, Anthropic and Gemini."""
    async with FakeLLMServer() as server:
        yield server


@pytest.fixture
async def transport() -> AsyncIterator[Transport]:
    """The shared HTTP transport, closed after the test."""
    async with Transport(TransportConfig(max_response_bytes=256 * 1024)) as shared:
        yield shared


def base_url_for(provider: str, fake: FakeLLMServer) -> str:
    """Where a member of ``provider`` reaches the fake."""
    return fake.base_url(provider)


ProviderFactory = Callable[..., Provider]


@pytest.fixture
def make_provider(fake_llm: FakeLLMServer, transport: Transport) -> ProviderFactory:
    """Build a provider pointed at the fake: ``make_provider("openai", "model-x", deadline_s=2)``."""

    def factory(
        provider: str,
        model: str,
        *,
        deadline_s: float = 5.0,
        retry: RetryPolicy = FAST_RETRY,
        api_key: str | None = None,
        **member_fields: object,
    ) -> Provider:
        from pydantic import SecretStr

        member = MemberConfig(
            name=f"m-{model}"[:60], provider=provider, model=model, base_url=base_url_for(provider, fake_llm),
            **member_fields,
        )
        return build_provider(
            member, transport=transport, retry=retry, deadline_s=deadline_s,
            api_key=SecretStr(api_key) if api_key else None,
        )

    return factory


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the whole session (skipped outside CI when its binaries are missing)."""
    bindir = require_pg_bindir()
    with PostgresServer(bindir=bindir) as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def db_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store opens: a SQLite file, or a fresh database on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "council.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.create_database(f"t_{uuid.uuid4().hex[:16]}")
