"""safety.moderation in the config file: each provider's settings, the member alias, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.config import CouncilConfig, ModerationConfig, SafetyConfig, load_config
from council.errors import ConfigError

MEMBERS = """\
members:
  - {name: alpha, provider: simulated, model: sim-a}
  - {name: beta, provider: simulated, model: sim-b}
"""


def load(tmp_path: Path, safety: str) -> CouncilConfig:
    path = tmp_path / "council.yaml"
    path.write_text(MEMBERS + "safety:\n" + "".join(f"  {line}\n" for line in safety.strip().splitlines()),
                    encoding="utf-8")
    return load_config(path, environ={})


def problem(tmp_path: Path, safety: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, safety)
    return str(caught.value)


def test_each_provider_takes_its_usual_model_and_endpoint(tmp_path):
    openai = load(tmp_path, "moderation: {provider: openai, api_key_env: OPENAI_API_KEY}").safety
    assert openai.moderation.model_name == "omni-moderation-latest" and openai.classifier == "moderation:openai"
    guard = load(tmp_path, "moderation: {provider: llama_guard, base_url: 'http://localhost:11434/v1'}").safety
    assert guard.moderation.model_name == "llama-guard3" and guard.llm_member is None
    named = load(tmp_path, "moderation: {provider: llama_guard, base_url: 'http://h/v1', model: llama-guard4}")
    assert named.safety.moderation.model_name == "llama-guard4"


def test_moderation_member_and_llm_member_are_one_setting(tmp_path):
    assert load(tmp_path, "moderation: {member: beta}").safety.llm_member == "beta"
    assert load(tmp_path, "llm_member: beta").safety.classifier == "beta"
    assert load(tmp_path, "llm_member: beta\nmoderation: {member: beta}").safety.llm_member == "beta"
    assert "differ" in problem(tmp_path, "llm_member: alpha\nmoderation: {member: beta}")
    assert "keep one" in problem(tmp_path, "llm_member: alpha\nmoderation: {provider: openai, api_key_env: K}")
    assert "'gamma' is not a member" in problem(tmp_path, "moderation: {member: gamma}")
    assert "safety.moderation.member" in problem(tmp_path, "moderation: {member: gamma}")


@pytest.mark.parametrize(("safety", "expected"), [
    ("moderation: {provider: openai, member: alpha, api_key_env: K}", "either provider"),
    ("moderation: {}", "either provider"),
    ("moderation: {provider: llama_guard}", "llama_guard needs base_url"),
    ("moderation: {provider: openai}", "needs api_key_env"),
    ("moderation: {member: alpha, model: x}", "remove model"),
    ("moderation: {provider: perspective, api_key_env: K}", "safety.moderation.provider"),
    ("moderation: {provider: openai, api_key_env: K, modle: x}", "safety.moderation.modle"),
    ("moderation: {provider: openai, api_key_env: K, timeout_s: 0}", "safety.moderation.timeout_s"),
])
def test_a_wrong_moderation_setting_is_an_error_naming_it(tmp_path, safety, expected):
    assert expected in problem(tmp_path, safety)


def test_secrets_in_the_moderation_settings_are_refused_without_echo(tmp_path):
    key = "sk_live_Zq81XvT2bLwP9rKs7YhN4cQeA1"
    message = problem(tmp_path, f"moderation: {{provider: openai, api_key_env: {key}}}")
    assert "looks like an API key" in message and key not in message
    message = problem(tmp_path, "moderation: {provider: llama_guard, base_url: 'http://u:hunter2secret@h/v1'}")
    assert "must not contain credentials" in message and "hunter2secret" not in message


def test_the_alias_holds_when_the_settings_are_built_in_python():
    assert SafetyConfig(moderation=ModerationConfig(member="beta")).llm_member == "beta"
    assert SafetyConfig.model_validate({"moderation": {"member": "beta"}}).classifier == "beta"
    assert SafetyConfig().classifier is None and SafetyConfig().moderation_provider is None
