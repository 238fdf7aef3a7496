"""The upstream connection pool's limits: derived from the runs a council expects at once, unless set."""

from __future__ import annotations

from pathlib import Path

import pytest

from council import Council
from council.config import CouncilConfig, TransportConfig, load_config
from council.errors import ConfigError

FOUR_ON_ONE_GATEWAY = """\
members:
  - {name: alpha, provider: openai, model: m-alpha, base_url: "http://127.0.0.1:4000/v1"}
  - {name: beta, provider: openai, model: m-beta, base_url: "http://127.0.0.1:4000/v1"}
  - {name: gamma, provider: openai, model: m-gamma, base_url: "http://127.0.0.1:4000/v1"}
  - {name: delta, provider: openai, model: m-delta, base_url: "http://127.0.0.1:4000/v1"}
chairman: alpha
"""


def load(tmp_path: Path, extra: str = "") -> CouncilConfig:
    path = tmp_path / "council.yaml"
    path.write_text(FOUR_ON_ONE_GATEWAY + extra, encoding="utf-8")
    return load_config(path, {})


def limits(config: CouncilConfig, runs: int) -> tuple[int | None, int | None]:
    sized = config.transport_for(runs)
    return sized.max_connections, sized.max_connections_per_host


def test_the_default_config_leaves_both_limits_to_be_derived(tmp_path):
    config = load(tmp_path)
    assert (config.transport.max_connections, config.transport.max_connections_per_host) == (None, None)
    assert config.calls_in_flight_per_run() == 4  # four answers (or four reviews) at once; the chairman alone
    # The server's default admission, 32 runs, times four calls: the old 50 per host held back 18 runs' calls.
    assert limits(config, config.server.max_concurrent_runs) == (128, 128)


def test_the_limits_follow_the_runs_the_server_admits(tmp_path):
    config = load(tmp_path, "server: {max_concurrent_runs: 100}\n")
    assert limits(config, config.server.max_concurrent_runs) == (400, 400)
    assert limits(config, 1) == (4, 4)


def test_a_straggler_policy_counts_the_calls_it_leaves_running(tmp_path):
    # Quorum 2 of 4: up to two cut answers still run while the four reviews are made.
    staged = load(tmp_path, "stages: {straggler_factor: 2.0}\n")
    assert staged.calls_in_flight_per_run() == 6
    preset = load(tmp_path, "councils: {quick: {members: [alpha, beta], straggler_factor: 3}}\n")
    assert preset.calls_in_flight_per_run() == 6, "a preset with the policy counts too"
    assert limits(preset, 10) == (60, 60)


def test_an_explicit_per_host_limit_wins_and_the_total_stays_above_it(tmp_path):
    config = load(tmp_path, "transport: {max_connections_per_host: 50}\n")
    assert limits(config, 32) == (128, 50)
    wide = load(tmp_path, "transport: {max_connections_per_host: 1000}\n")
    assert limits(wide, 32) == (1000, 1000), "a derived total is never below the per-host limit"


def test_an_explicit_total_wins_and_caps_the_derived_per_host_limit(tmp_path):
    config = load(tmp_path, "transport: {max_connections: 100}\n")
    assert limits(config, 32) == (100, 100)
    both = load(tmp_path, "transport: {max_connections: 200, max_connections_per_host: 50}\n")
    assert limits(both, 500) == (200, 50), "the old fixed limits, set explicitly, are kept as they are"


def test_the_derived_limits_stay_within_the_settable_range(tmp_path):
    config = load(tmp_path, "server: {max_concurrent_runs: 10000}\n")
    assert limits(config, config.server.max_concurrent_runs) == (10_000, 10_000)
    assert TransportConfig().connection_limits(0) == (1, 1)


@pytest.mark.parametrize("setting", ["max_connections: 0", "max_connections_per_host: 0",
                                     "max_connections_per_host: 20000"])
def test_a_limit_out_of_range_names_the_setting(tmp_path, setting):
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, f"transport: {{{setting}}}\n")
    assert f"transport.{setting.split(':')[0]}" in str(caught.value)


def test_a_council_refuses_runs_at_once_below_one(tmp_path):
    with pytest.raises(ValueError, match="runs_at_once must be at least 1, got 0"):
        Council(load(tmp_path), store=False, environ={}, runs_at_once=0)
