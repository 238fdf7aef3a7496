"""The command line: exit codes and messages, and a real run against the fake upstream."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from council.cli.app import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main
from council.testing.fake_llm import Step

CLEAN_ENV = {"PATH": os.environ.get("PATH", "")}


@pytest.fixture(autouse=True)
def private_database(tmp_path):
    """Every CLI run in these tests writes to its own database, never the user's."""
    CLEAN_ENV["COUNCIL_DB_PATH"] = str(tmp_path / "cli.db")
    yield
    CLEAN_ENV.pop("COUNCIL_DB_PATH", None)


def run_cli(capsys, *argv: str, environ: dict[str, str] | None = None) -> tuple[int, str, str]:
    code = main(list(argv), {**CLEAN_ENV, **(environ or {})})
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def member_config(tmp_path: Path, base_url: str, *, key_env: str | None = None, provider: str = "openai") -> Path:
    key = f"\n    api_key_env: {key_env}" if key_env else ""
    members = "".join(
        f"  - name: {name}\n    provider: {provider}\n    model: model-{name}\n    base_url: {base_url}{key}\n"
        for name in ("solo", "duo")
    )
    path = tmp_path / "council.yaml"
    path.write_text(
        f"members:\n{members}retry: {{max_attempts: 2, initial_backoff_s: 0.01, jitter_s: 0}}\n",
        encoding="utf-8",
    )
    return path


def test_no_config_runs_the_simulated_council_and_says_so(capsys):
    code, out, err = run_cli(capsys, "ask", "What is entropy?")
    assert code == EXIT_OK
    assert "SIMULATED council" in err
    assert out.startswith("[SIMULATED council")
    assert "Final answer (by atlas, chairman)" in out and "entropy" in out
    assert "Ranking (calibrated)" in out and "reviewer agreement" in out
    assert "Asking the council members…" in err and "- boreal reviewed 3 answers" in err


def test_json_output_is_exactly_json(capsys):
    code, out, _err = run_cli(capsys, "ask", "What is entropy?", "--json")
    assert code == EXIT_OK
    result = json.loads(out)
    assert result["simulated"] is True and result["status"] == "complete"
    assert {"run_id", "question", "answers", "reviews", "ranking", "agreement", "bias_flags", "final_answer",
            "degraded", "degraded_reasons", "timings", "usage", "reproducibility"} <= set(result)
    assert [a["member"] for a in result["answers"]] == ["atlas", "boreal", "cirrus", "delta"]


def test_compare_shows_answers_and_dimensions(capsys):
    code, out, _ = run_cli(capsys, "compare", "What is entropy?", "--quiet", "--chairman", "none")
    assert code == EXIT_OK
    assert "Scores per dimension" in out
    for column in ("accuracy", "relevance", "completeness", "conciseness", "clarity"):
        assert column in out
    assert all(name in out for name in ("atlas [ok]", "boreal [ok]", "cirrus [ok]", "delta [ok]"))


def test_runs_and_show(capsys):
    code, out, _ = run_cli(capsys, "ask", "What is entropy?", "--json", "--quiet")
    run_id = json.loads(out)["run_id"]
    code, out, _ = run_cli(capsys, "runs")
    assert code == EXIT_OK and run_id in out and "[sim] What is entropy?" in out
    code, out, _ = run_cli(capsys, "show", run_id, "--json")
    assert code == EXIT_OK and json.loads(out)["run_id"] == run_id
    code, out, _ = run_cli(capsys, "show", run_id)
    assert code == EXIT_OK and f"run {run_id}" in out
    code, _, err = run_cli(capsys, "show", "nope")
    assert code == EXIT_USAGE and "no run 'nope'" in err


def test_missing_config_file(capsys, tmp_path):
    code, out, err = run_cli(capsys, "ask", "q", "--config", str(tmp_path / "none.yaml"))
    assert code == EXIT_USAGE and out == ""
    assert err.strip() == f"council: config error in {tmp_path / 'none.yaml'}: file not found"


def test_config_from_environment_variable(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("members: 3\n")
    code, _, err = run_cli(capsys, "ask", "q", environ={"COUNCIL_CONFIG": str(path)})
    assert code == EXIT_USAGE
    assert f"config error in {path}: members: input should be a valid list" in err


def test_missing_key_stops_before_any_call(capsys, tmp_path):
    path = member_config(tmp_path, "http://127.0.0.1:9/v1", key_env="FAKE_TEST_KEY")
    code, _, err = run_cli(capsys, "ask", "q", "--config", str(path))
    assert code == EXIT_USAGE
    assert "member 'solo' reads its API key from $FAKE_TEST_KEY, which is not set" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "   "], "council: the question is empty"),
        (["ask", "q", "--members", "nobody"], "unknown members: nobody; members are: atlas, boreal, cirrus, delta"),
        (["ask", "q", "--chairman", "zed"], "chairman 'zed' is not a member"),
        (["runs", "--limit", "0"], "--limit must be at least 1, got 0"),
    ],
)
def test_bad_arguments(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == EXIT_USAGE
    assert message in err


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["ask"], CLEAN_ENV)
    assert caught.value.code == 2
    assert "the following arguments are required: question" in capsys.readouterr().err


def test_config_check_reports_unset_keys(capsys):
    from council.assets import config_dir

    code, out, err = run_cli(capsys, "config", "check", str(config_dir() / "council.yaml"))
    assert code == EXIT_USAGE
    assert "valid, 4 members" in out and "$OPENROUTER_API_KEY NOT SET" in out
    assert "key variable(s) not set" in err
    code, out, _ = run_cli(capsys, "config", "check", str(config_dir() / "council.yaml"),
                           environ={"OPENROUTER_API_KEY": "sk-or-test"})
    assert code == EXIT_OK and "$OPENROUTER_API_KEY set" in out
    assert "sk-or-test" not in out


def test_config_check_reports_the_moderation_apis_key(capsys, tmp_path):
    path = tmp_path / "council.yaml"
    path.write_text("members:\n  - {name: solo, provider: simulated, model: sim}\nstages: {quorum: 1}\n"
                    "safety:\n  moderation: {provider: openai, api_key_env: OPENAI_API_KEY}\n")
    code, out, err = run_cli(capsys, "config", "check", str(path))
    assert code == EXIT_USAGE and "safety.moderation" in out and "omni-moderation-latest" in out
    assert "$OPENAI_API_KEY NOT SET" in out and "1 key variable(s) not set" in err
    code, out, _ = run_cli(capsys, "config", "check", str(path), environ={"OPENAI_API_KEY": "sk-test-abc"})
    assert code == EXIT_OK and "$OPENAI_API_KEY set" in out and "sk-test-abc" not in out


def test_config_check_refuses_a_param_the_members_api_lacks(capsys, tmp_path):
    path = tmp_path / "council.yaml"
    path.write_text(
        "members:\n  - name: solo\n    provider: simulated\n    model: sim\n"
        "  - name: claude\n    provider: anthropic\n    model: claude-x\n    api_key_env: ANTHROPIC_API_KEY\n"
        "    params:\n      reasoning_effort: high\n"
    )
    code, out, err = run_cli(capsys, "config", "check", str(path), environ={"ANTHROPIC_API_KEY": "sk-ant-test"})
    assert code == EXIT_USAGE and "valid" not in out
    assert "members[1].params.reasoning_effort: the anthropic API has no reasoning_effort" in err
    code, _, err = run_cli(capsys, "ask", "--config", str(path), "hi", environ={"ANTHROPIC_API_KEY": "sk-ant-test"})
    assert code == EXIT_USAGE and "members[1].params.reasoning_effort" in err, "the program stops before asking"


async def _cli(*argv: str, env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "council", *argv,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env={**CLEAN_ENV, **env},
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_ask_runs_a_council_over_real_http(fake_llm, tmp_path):
    from council.testing.scripted import council_member

    fake_llm.script(
        "model-solo", Step(reply=council_member("Entropy counts the microstates consistent with a macrostate."))
    )
    fake_llm.script("model-duo", Step(reply=council_member("Entropy is disorder, roughly.")))
    path = member_config(tmp_path, fake_llm.base_url("openai"), key_env="FAKE_TEST_KEY")
    env = {"FAKE_TEST_KEY": "sk-fake-key-1", "COUNCIL_DB_PATH": str(tmp_path / "sub.db")}
    code, out, err = await _cli("ask", "What is entropy?", "--config", str(path), env=env)
    assert code == EXIT_OK, err
    assert "Final answer (by solo, top-ranked answer)" in out
    assert "Entropy counts the microstates consistent with a macrostate." in out
    assert "only two answers survived" in out
    assert fake_llm.requests[0].headers["Authorization"] == "Bearer sk-fake-key-1"
    assert "sk-fake-key-1" not in out + err


async def test_every_member_failing_is_a_clear_failure(fake_llm, tmp_path):
    fake_llm.script("model-solo", Step(status=401, error_message="bad key"))
    fake_llm.script("model-duo", Step(status=401, error_message="bad key"))
    path = member_config(tmp_path, fake_llm.url, provider="anthropic")
    code, out, err = await _cli("ask", "q", "--config", str(path), env={"COUNCIL_DB_PATH": str(tmp_path / "f.db")})
    assert code == EXIT_FAILED
    assert "Run failed: quorum not met: 0 of 2 members answered, 2 needed" in out
    assert "auth: solo (anthropic/model-solo): HTTP 401 bad key" in out
    assert "council: run failed: quorum not met" in err
    assert "Traceback" not in err
