"""The reproducibility record: floating aliases, code version, environment, config hash."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from council import __version__
from council.config import load_config
from council.evals.manifest import (
    DEFAULT_PARAMS,
    alias_warnings,
    code_version,
    config_hash,
    environment,
    is_floating,
    new_run_id,
)
from council.evals.records import ModelRecord
from tests.evals.conftest import fast_simulated_file


@pytest.mark.parametrize(("model", "floating"), [
    ("chatgpt-4o-latest", True), ("claude-3-5-sonnet-latest", True), ("llama3.1:latest", True),
    ("gemini-flash-latest", True), ("openai/gpt-5", False), ("claude-sonnet-4-5-20250929", False),
    ("latestmodel-1", False),
])
def test_floating_aliases(model, floating):
    assert is_floating(model) is floating


def test_alias_warnings_name_the_member_and_the_version_served():
    models = [
        ModelRecord(member="a", provider="openai", model="gpt-x-latest", floating_alias=True),
        ModelRecord(member="b", provider="openai", model="gpt-x", versions=["gpt-x-2025-01-01"]),
        ModelRecord(member="c", provider="openai", model="vendor/model-1", versions=["model-1"]),
        ModelRecord(member="d", provider="simulated", model="sim-1", versions=["simulated/sim-1"]),
        ModelRecord(member="e", provider="openai", model="m", versions=["m-1", "m-2"]),
    ]
    warnings = alias_warnings(models)
    assert warnings[0].startswith("a: model 'gpt-x-latest' is a floating alias")
    assert (
        warnings[1] == "b: model 'gpt-x' was served as gpt-x-2025-01-01; it is an alias that can move, pin that version"
    )
    assert not any(w.startswith(("c:", "d:")) for w in warnings)
    assert any(w.startswith("e: the provider reported 2 versions") for w in warnings)


def test_generation_defaults():
    assert DEFAULT_PARAMS.model_dump(exclude_none=True) == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 1024,
                                                            "seed": 42}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_code_version_is_the_git_sha_in_a_checkout():
    root = Path(__file__).resolve().parents[2]
    found = code_version()
    assert found["package_version"] == __version__
    if (root / ".git").exists():
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        assert found["source"] == "git" and found["git_sha"] == head.strip()
        assert isinstance(found["git_dirty"], bool)
    else:
        assert found["source"] == "package" and found["git_sha"] is None


def test_environment_and_run_ids():
    env = environment()
    assert re.fullmatch(r"3\.\d+\.\d+.*", env["python"]) and env["packages"]["numpy"]
    assert re.fullmatch(r"\d{8}T\d{6}-[0-9a-f]{6}", new_run_id())
    assert new_run_id() != new_run_id()


def test_config_hash_ignores_where_things_are_stored(tmp_path):
    path = fast_simulated_file(tmp_path)
    one = load_config(path, {"COUNCIL_DB_PATH": str(tmp_path / "a.db")})
    two = load_config(path, {"COUNCIL_DB_PATH": str(tmp_path / "b.db"), "COUNCIL_LOG_LEVEL": "debug"})
    assert config_hash(one) == config_hash(two)
    path.write_text(path.read_text().replace("quality: 0.9", "quality: 0.8"))
    assert config_hash(load_config(path, {})) != config_hash(one)
