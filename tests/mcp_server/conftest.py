"""Fixtures shared by the MCP server's tests."""

from __future__ import annotations

import pytest

from tests.storage.test_store import simulated_without_latency


@pytest.fixture
def simulated() -> dict:
    """The simulated council's config, without latency, as the YAML a test server is started with."""
    return simulated_without_latency().model_dump(mode="json", exclude_none=True)
