"""Secrets that end up where they do not belong are refused at load time, and never printed back."""

from __future__ import annotations

import subprocess
import sys

import pytest

from council import ConfigError, load_config
from council.rubrics.load import load_rubric

PASTED_KEYS = [
    "sk_live_51HabcDEFghiJKLmnoPQRstuVWX",        # Stripe-style, also a valid variable name
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",     # Google API key
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",   # GitHub token
    "github_pat_11ABCDEFG0123456789_abcdefghijk",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "gsk_abcdefghijklmnopqrstuvwxyz012345",
    "AKIAIOSFODNN7EXAMPLE",                        # AWS access key id
    "Q2xhdWRlSXNHcmVhdEFuZFRoaXNJc0FUb2tlbg9",      # a long mixed-case token with no prefix
]
VARIABLE_NAMES = ["OPENAI_API_KEY", "OPENROUTER_API_KEY_FOR_TEAM_STAGING", "MY_KEY_2", "ANTHROPIC_API_KEY",
                  "HF_TOKEN", "sk_key", "GEMINI_API_KEY_EU_WEST_1_PRODUCTION_BACKUP"]


def member_config(tmp_path, **member: str):
    fields = "\n".join(f"    {key}: '{value}'" for key, value in member.items())
    path = tmp_path / "council.yaml"
    path.write_text(f"members:\n  - name: alpha\n    provider: openai\n    model: m\n{fields}\n"
                    "stages:\n  quorum: 1\n", encoding="utf-8")
    return path


def assert_not_echoed(message: str, secret: str) -> None:
    assert secret not in message
    for start in range(0, len(secret) - 6):  # not even a recognisable piece of it
        assert secret[start:start + 7] not in message, secret[start:start + 7]


@pytest.mark.parametrize("secret", PASTED_KEYS)
def test_a_key_pasted_as_api_key_env_is_refused_without_echo(tmp_path, secret):
    with pytest.raises(ConfigError) as caught:
        load_config(member_config(tmp_path, api_key_env=secret), environ={})
    message = str(caught.value)
    assert "members[0].api_key_env" in message and "looks like an API key itself" in message
    assert_not_echoed(message, secret)


@pytest.mark.parametrize("name", VARIABLE_NAMES)
def test_real_variable_names_are_accepted(tmp_path, name):
    config = load_config(member_config(tmp_path, api_key_env=name, base_url="http://127.0.0.1:9/v1"), environ={})
    assert config.members[0].api_key_env == name


def test_a_key_pasted_as_the_server_keys_variable_is_refused(tmp_path):
    path = tmp_path / "council.yaml"
    path.write_text("members:\n  - {name: a, provider: simulated, model: s}\n"
                    f"server:\n  api_keys_env: {PASTED_KEYS[0]}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    assert "server.api_keys_env" in str(caught.value)
    assert_not_echoed(str(caught.value), PASTED_KEYS[0])


@pytest.mark.parametrize(("url", "secret"), [
    ("https://user:s3cretPassw0rd@api.example.com/v1", "s3cretPassw0rd"),
    ("https://tok_abcdef123456@api.example.com/v1", "tok_abcdef123456"),
    ("https://generativelanguage.googleapis.com/v1beta?key=AIzaSyA1b2C3d4E5f6G7h8I9j0", "AIzaSyA1b2C3d4E5f6G7h8I9j0"),
])
def test_credentials_in_base_url_are_refused_without_echo(tmp_path, url, secret):
    with pytest.raises(ConfigError) as caught:
        load_config(member_config(tmp_path, base_url=url, api_key_env="OPENAI_API_KEY"), environ={})
    message = str(caught.value)
    assert "members[0].base_url" in message
    assert_not_echoed(message, secret)
    assert "api.example.com" not in message and "googleapis" not in message


def test_config_check_does_not_print_a_credential_url(tmp_path):
    path = member_config(tmp_path, base_url="https://user:s3cretPassw0rd@api.example.com/v1")
    done = subprocess.run([sys.executable, "-m", "council", "config", "check", "--config", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "s3cretPassw0rd" not in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_a_wrong_typed_value_is_described_by_its_type_not_its_content(tmp_path):
    path = tmp_path / "council.yaml"
    path.write_text("members:\n  - name: alpha\n    provider: simulated\n    model: m\n"
                    "stages:\n  quorum: 'root:$6$saltsalt$hashedpasswordvalue:19000:0:99999:7:::'\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    message = str(caught.value)
    assert "stages.quorum" in message and "got a string of 55 characters" in message
    assert "hashedpassword" not in message and "root:" not in message


def test_a_rubric_file_of_the_wrong_shape_does_not_echo_its_lines(tmp_path):
    path = tmp_path / "shadow.yaml"
    path.write_text("id: x\nversion: '1.0.0'\nname: 'root:$6$saltsalt$hashedpasswordvalue:19000'\n"
                    "criteria: 'daemon:*:19000:0:99999:7:::'\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_rubric(str(path), quiet=True)
    message = str(caught.value)
    assert "criteria" in message
    assert "daemon" not in message and "hashedpassword" not in message


@pytest.mark.parametrize("loader", ["config", "rubric"])
def test_files_over_one_mib_are_refused_unread(tmp_path, loader):
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)
    with pytest.raises(ConfigError, match="larger than 1 MiB"):
        if loader == "config":
            load_config(path, environ={})
        else:
            load_rubric(str(path), quiet=True)
