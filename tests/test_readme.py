"""The README's examples stay true: its rubric example validates, its config table names real settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from council.config import CouncilConfig
from council.rubrics.load import parse_rubric

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_full_rubric_example_is_valid():
    block = README.split("A full example, with every form of criterion:\n\n```yaml\n", 1)[1].split("```", 1)[0]
    rubric, warnings = parse_rubric(yaml.safe_load(block), "README")
    assert warnings == []
    assert {c.kind for c in rubric.criteria} == {"checklist", "scored", "levels"}
    assert {c.scoring for c in rubric.criteria} == {"llm", "deterministic", "schema"}


def test_every_setting_in_the_reference_table_exists():
    table = README.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    keys = [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")]
    assert len(keys) > 30
    for key in keys:
        section, _, field = key.partition(".")
        section = section.removesuffix("[]")
        if not field:
            assert section in CouncilConfig.model_fields, key
            continue
        model = CouncilConfig.model_fields[section].annotation
        if section == "members":
            from council.config import MemberConfig as model
        for name in field.split(" / ")[0].split("."):
            assert name in model.model_fields, key  # type: ignore[union-attr]


def python_blocks() -> list[str]:
    return [block.split("```", 1)[0] for block in README.split("```python\n")[1:]]


def test_the_readme_has_python_examples():
    blocks = python_blocks()
    assert len(blocks) >= 3 and any("from council import Council" in b for b in blocks)


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_every_python_block_of_the_readme_runs(index, tmp_path):
    """Each block runs as written, in a fresh interpreter, on the simulated council (no network, no keys)."""
    block = python_blocks()[index]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "COUNCIL_DB_PATH": str(tmp_path / "c.db")}
    done = subprocess.run([sys.executable, "-W", "error", "-c", block], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    if "asyncio.run(main())" in block:
        assert done.stdout.strip(), "the example prints its result"
        assert "council:" not in done.stdout, done.stdout  # the except branch of an example did not run


def test_the_first_readme_commands_are_the_two_commands():
    commands = [b.split("```", 1)[0].strip() for b in README.split("```sh\n")[1:3]]
    assert commands[0].endswith('council ask "Why is the sky blue?"') and "pip install -q -e ." in commands[0]
    assert commands[1].endswith(".venv/bin/pytest") and "'.[test]'" in commands[1]
