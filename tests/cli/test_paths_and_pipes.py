"""Paths typed by a user are read from the current directory; output into a closed pipe ends quietly.

A rubric path given on a command line or to the Python API is relative to
where the user stands; only a path written inside a config file is relative
to that file. ``council ... | head`` must not end in an internal error.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from council import Council
from council.assets import config_dir
from council.cli import main

ROOT = Path(__file__).parents[2]
QUIZ = Path(__file__).parents[1] / "rubrics" / "fixtures" / "dataknobs_quiz.yaml"
MEMBERS = ("members:\n  - {name: a, provider: simulated, model: sim-a}\n"
           "  - {name: b, provider: simulated, model: sim-b}\n  - {name: c, provider: simulated, model: sim-c}\n")


def renamed_rubric(path: Path, rubric_id: str) -> None:
    """A copy of the shipped default rubric under another id, so a test can tell which file was read."""
    text = (config_dir() / "rubrics" / "default.yaml").read_text(encoding="utf-8")
    path.write_text(text.replace("\nid: default\n", f"\nid: {rubric_id}\n"), encoding="utf-8")


@pytest.fixture
def layout(tmp_path, monkeypatch) -> tuple[Path, dict[str, str]]:
    """A project folder to stand in, and the config in a folder of its own beside a rubric of the same name."""
    work, settings = tmp_path / "work", tmp_path / "settings"
    work.mkdir()
    settings.mkdir()
    renamed_rubric(work / "mine.yaml", "from_the_current_folder")
    renamed_rubric(settings / "mine.yaml", "from_the_config_folder")
    renamed_rubric(settings / "strict.yaml", "strict_from_the_config_folder")
    config = settings / "council.yaml"
    config.write_text(MEMBERS + "councils:\n  strict:\n    rubric: strict.yaml\n", encoding="utf-8")
    monkeypatch.chdir(work)
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db"),
           "COUNCIL_CONFIG": str(config)}
    return work, env


def ask_json(capsys, env: dict[str, str], *argv: str) -> dict[str, object]:
    code = main(["ask", "What is six times seven?", "--json", "--quiet", *argv], env)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_ask_reads_a_relative_rubric_from_the_current_folder(layout, capsys):
    _, env = layout
    result = ask_json(capsys, env, "--rubric", "mine.yaml")
    assert result["reproducibility"]["rubric_id"] == "from_the_current_folder"
    result = ask_json(capsys, env, "--rubric", "./mine.yaml")
    assert result["reproducibility"]["rubric_id"] == "from_the_current_folder"


def test_a_preset_rubric_written_in_the_config_is_relative_to_the_config(layout, capsys):
    _, env = layout
    result = ask_json(capsys, env, "--preset", "strict")
    assert result["reproducibility"]["rubric_id"] == "strict_from_the_config_folder"


def test_the_python_api_reads_a_relative_rubric_from_the_current_folder(layout):
    _, env = layout
    council = Council.from_config(environ=env)
    try:
        assert council.plan("Hello?", rubric="mine.yaml").rubric.id == "from_the_current_folder"
        assert council.plan("Hello?", preset="strict").rubric.id == "strict_from_the_config_folder"
    finally:
        if council.store is not None:
            council.store.close()


def test_rubric_evaluate_and_review_read_relative_paths_from_the_current_folder(layout, capsys):
    work, env = layout
    code = main(["rubric", "evaluate", "./mine.yaml", "--question", "What is six times seven?", "--answer", "42",
                 "--json"], env)
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    assert json.loads(captured.out)["rubric_id"] == "from_the_current_folder"
    shutil.copy(QUIZ, work / "quiz.yaml")
    (work / "bio-quiz.json").write_text(json.dumps({"questions": [f"Q{i}" for i in range(5)]}), encoding="utf-8")
    code = main(["rubric", "review", "bio-quiz.json", "--rubric", "quiz.yaml", "--json"], env)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["evaluations"][0]["rubric_id"] == "quiz_quality"


def test_a_missing_relative_rubric_names_the_path_the_user_typed(layout, capsys):
    _, env = layout
    code = main(["ask", "Hello?", "--rubric", "absent.yaml"], env)
    err = capsys.readouterr().err
    assert code == 2
    assert "config error in absent.yaml: file not found" in err
    assert "settings" not in err, "the config's folder is not where a typed path is looked up"


@pytest.mark.parametrize("argv", [["rubric", "show", "default"], ["rubric", "check", "config/rubrics/default.yaml"],
                                  ["ask", "Why is the sky blue?", "--json", "--quiet"]])
def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(argv):
    # The reader goes away before the command writes anything, as `council ... | head -0` does.
    process = subprocess.Popen([sys.executable, "-m", "council", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "COUNCIL_CONFIG": ""})
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == 141, errors
    assert "internal error" not in errors and "Traceback" not in errors, errors


def test_ask_says_when_the_result_cache_answered_and_no_cache_runs_again(tmp_path, capsys):
    config = tmp_path / "council.yaml"
    config.write_text(MEMBERS + f"cache:\n  ttl_s: 600\nstorage:\n  path: {tmp_path / 'runs.db'}\n", encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_CONFIG": str(config)}
    first = ask_json(capsys, env)
    code = main(["ask", "What is six times seven?", "--json"], env)
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["cached_from"] == first["run_id"]
    assert f"answered from the result cache (run {first['run_id']})" in captured.err
    code = main(["ask", "What is six times seven?", "--json", "--no-cache"], env)
    captured = capsys.readouterr()
    assert code == 0 and "cached_from" not in json.loads(captured.out) and "result cache" not in captured.err
