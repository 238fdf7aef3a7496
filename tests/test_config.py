"""Loading and validating the council config, with messages that name the problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from council import config as config_module
from council.config import (
    CouncilConfig,
    config_path_from,
    load_config,
    resolve_api_keys,
    server_api_keys,
)
from council.errors import ConfigError, MissingApiKeyError

MINIMAL = """\
members:
  - name: alpha                         # unique; shown in every result
    provider: openai                    # openai | anthropic | gemini | simulated
    model: gpt-4o-mini
    base_url: http://127.0.0.1:8080/v1  # optional; the provider's default otherwise
    api_key_env: OPENAI_API_KEY         # optional for local servers
  - name: beta
    provider: anthropic
    model: claude-sonnet-4-5
    api_key_env: ANTHROPIC_API_KEY
chairman: alpha                         # optional; a member's name
"""


def write(tmp_path: Path, text: str, name: str = "council.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def config_error(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ or {})
    message = str(caught.value)
    assert str(path) in message, "a config error names its file"
    return message


def test_the_minimal_shape_works_exactly_as_written(tmp_path):
    config = load_config(write(tmp_path, MINIMAL), {})
    alpha, beta = config.members
    assert (alpha.name, alpha.provider, alpha.model, alpha.base_url, alpha.api_key_env) == (
        "alpha", "openai", "gpt-4o-mini", "http://127.0.0.1:8080/v1", "OPENAI_API_KEY")
    assert (beta.name, beta.provider, beta.model, beta.base_url) == ("beta", "anthropic", "claude-sonnet-4-5", None)
    assert config.chairman == "alpha"
    assert config.stages.quorum == 2 and config.retry.max_attempts == 3
    assert config.source == str(tmp_path / "council.yaml")


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "nope.yaml", {})
    assert str(caught.value) == f"config error in {tmp_path / 'nope.yaml'}: file not found"


def test_unknown_key_names_its_path_and_the_allowed_keys(tmp_path):
    message = config_error(tmp_path, MINIMAL.replace("model: gpt-4o-mini", "modle: gpt-4o-mini"))
    assert "members[0].modle: unknown key; allowed keys: name, provider, model," in message
    assert "members[0].model: required key is missing" in message


def test_unknown_top_level_key(tmp_path):
    message = config_error(tmp_path, MINIMAL + "chairmen: beta\n")
    assert "chairmen: unknown key; allowed keys: members, chairman, rubric" in message


def test_wrong_type_names_path_expectation_and_value(tmp_path):
    message = config_error(tmp_path, MINIMAL + "stages:\n  quorum: many\n")
    assert "stages.quorum: input should be a valid integer" in message
    assert "got 'many'" in message


def test_wrong_provider(tmp_path):
    message = config_error(tmp_path, MINIMAL.replace("provider: openai ", "provider: opnai "))
    assert "members[0].provider: input should be 'openai', 'anthropic', 'gemini' or 'simulated', got 'opnai'" in message


def test_missing_key_variable_names_member_and_variable(tmp_path):
    config = load_config(write(tmp_path, MINIMAL), {})
    with pytest.raises(MissingApiKeyError) as caught:
        resolve_api_keys(config, {"OPENAI_API_KEY": "sk-local"})
    assert caught.value.member == "beta" and caught.value.variable == "ANTHROPIC_API_KEY"
    assert "member 'beta' reads its API key from $ANTHROPIC_API_KEY, which is not set" in str(caught.value)


def test_keys_resolve_from_the_environment(tmp_path):
    config = load_config(write(tmp_path, MINIMAL), {})
    keys = resolve_api_keys(config, {"OPENAI_API_KEY": "sk-a", "ANTHROPIC_API_KEY": "  sk-b \n"})
    assert keys["alpha"].get_secret_value() == "sk-a"
    assert keys["beta"].get_secret_value() == "sk-b"
    assert "sk-b" not in repr(keys)


def test_empty_key_variable_counts_as_missing(tmp_path):
    config = load_config(write(tmp_path, MINIMAL), {})
    with pytest.raises(MissingApiKeyError):
        resolve_api_keys(config, {"OPENAI_API_KEY": "x", "ANTHROPIC_API_KEY": "   "})


def test_a_key_pasted_into_the_file_is_refused_and_never_echoed(tmp_path):
    secret = "sk-ant-api03-abcdefSECRET"
    message = config_error(tmp_path, MINIMAL.replace("api_key_env: ANTHROPIC_API_KEY", f"api_key_env: {secret}"))
    assert "members[1].api_key_env: expected the NAME of an environment variable" in message
    assert secret not in message
    message = config_error(tmp_path, MINIMAL.replace("api_key_env: ANTHROPIC_API_KEY", f"api_key: {secret}"))
    assert "members[1].api_key: unknown key" in message and "secrets never go in the file" in message
    assert secret not in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("chairman: alpha", "chairman: gamma"), "chairman 'gamma' is not a member; members are: alpha, beta"),
        (("name: beta", "name: alpha"), "member names must be unique; repeated: alpha"),
        (("chairman: alpha", "chairman: alpha\nstages: {quorum: 3}"), "stages.quorum is 3 but there are only 2"),
        (("    api_key_env: ANTHROPIC_API_KEY\n", ""), "provider anthropic needs api_key_env"),
        (("name: alpha ", "name: 'bad name' "), "members[0].name: string should match pattern"),
        (("base_url: http://127.0.0.1:8080/v1", "base_url: localhost:8080"), "members[0].base_url"),
    ],
)
def test_semantic_errors(tmp_path, change, expected):
    message = config_error(tmp_path, MINIMAL.replace(*change))
    assert expected in message


def test_simulated_member_rejects_network_settings(tmp_path):
    text = "members:\n  - {name: s, provider: simulated, model: sim, base_url: 'http://x/v1'}\n"
    assert "a simulated member makes no network call" in config_error(tmp_path, text)


def test_persona_only_for_simulated(tmp_path):
    text = MINIMAL.replace("model: gpt-4o-mini", "model: gpt-4o-mini\n    persona: {quality: 0.5}")
    assert "persona is only valid for provider: simulated" in config_error(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("members: [\n", "invalid YAML at line 2"),
        ("", "the file is empty"),
        ("- a\n- b\n", "the top level must be a mapping of keys, got list"),
        (MINIMAL + "chairman: beta\n", "duplicate key 'chairman' (line 12"),
        ("members: []\n", "members: list should have at least 1 item"),
    ],
)
def test_file_level_errors(tmp_path, text, expected):
    assert expected in config_error(tmp_path, text)


def test_environment_overrides(tmp_path):
    environ = {"COUNCIL_LOG_LEVEL": "DEBUG", "COUNCIL_LOG_FORMAT": "json", "COUNCIL_DB_PATH": str(tmp_path / "x.db")}
    config = load_config(write(tmp_path, MINIMAL + "logging: {level: error}\n"), environ)
    assert (config.logging.level, config.logging.format) == ("debug", "json")
    assert config.storage.path == tmp_path / "x.db"


def test_bad_environment_override_names_the_variable(tmp_path):
    message = config_error(tmp_path, MINIMAL, {"COUNCIL_LOG_FORMAT": "xml"})
    assert "logging.format: input should be 'console' or 'json', got 'xml' (from $COUNCIL_LOG_FORMAT)" in message


def test_config_path_priority(tmp_path):
    assert config_path_from("a.yaml", {"COUNCIL_CONFIG": "b.yaml"}) == Path("a.yaml")
    assert config_path_from(None, {"COUNCIL_CONFIG": "b.yaml"}) == Path("b.yaml")
    assert config_path_from(None, {}) is None


def test_server_keys_from_environment(tmp_path):
    config = load_config(write(tmp_path, MINIMAL), {})
    keys = server_api_keys(config, {"COUNCIL_API_KEYS": "k1, k2,,"})
    assert [k.get_secret_value() for k in keys] == ["k1", "k2"]
    assert server_api_keys(config, {}) == []


def test_config_is_frozen(tmp_path):
    config = load_config(write(tmp_path, MINIMAL), {})
    with pytest.raises(ValidationError):
        config.chairman = "beta"  # type: ignore[misc]


def _settings_models() -> list[type[BaseModel]]:
    return [
        CouncilConfig, config_module.MemberConfig, config_module.StageConfig, config_module.RetryPolicy,
        config_module.TransportConfig, config_module.ServerConfig, config_module.StorageConfig,
        config_module.LoggingConfig, config_module.SimulatedPersona, config_module.ReviewConfig,
        config_module.SafetyConfig,
    ]


@pytest.mark.parametrize("model", _settings_models(), ids=lambda m: m.__name__)
def test_every_setting_is_documented(model):
    undocumented = [name for name, field in model.model_fields.items() if not field.description]
    assert undocumented == []


@pytest.mark.parametrize("name", ["council.yaml", "simulated.yaml"])
def test_shipped_configs_are_valid(name):
    from council.assets import config_dir

    config = load_config(config_dir() / name, {})
    assert len(config.members) >= 2
    if name == "simulated.yaml":
        assert config.is_simulated


def test_the_example_ssn_setting_is_off_by_default_and_must_be_true_or_false(tmp_path):
    assert load_config(write(tmp_path, MINIMAL), {}).safety.pii_allow_example_ssns is False
    on = load_config(write(tmp_path, MINIMAL + "safety:\n  pii_allow_example_ssns: true\n"), {})
    assert on.safety.pii_allow_example_ssns is True
    message = config_error(tmp_path, MINIMAL + "safety:\n  pii_allow_example_ssns: sometimes\n")
    assert "safety.pii_allow_example_ssns: input should be a valid boolean" in message
