"""The README and the manual in docs/ stay true: their examples run, their references are real, nothing drifts.

Every Python block of the README and of every docs page runs as written on
the simulated council; the configuration reference is the one the config
model generates; the README stays a front door and every page it or the
site's navigation names exists.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from council.rubrics.load import parse_rubric

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def python_blocks() -> list[tuple[str, int, str]]:
    """(file, index, code) of every ```python block of the README and the docs pages."""
    found = []
    for path in [ROOT / "README.md", *PAGES]:
        blocks = [block.split("```", 1)[0] for block in text_of(path).split("```python\n")[1:]]
        found += [(path.relative_to(ROOT).as_posix(), index, block) for index, block in enumerate(blocks)]
    return found


BLOCKS = python_blocks()


def test_the_readme_is_a_front_door():
    assert len(README.splitlines()) <= 300
    commands = [b.split("```", 1)[0].strip() for b in README.split("```sh\n")[1:3]]
    assert commands[0].endswith('council ask "Why is the sky blue?"') and "pip install -q -e ." in commands[0]
    assert commands[1].endswith(".venv/bin/pytest") and "'.[test]'" in commands[1]
    assert README.index("```sh") < README.index("## "), "the two commands come first"


def test_every_page_the_readme_or_the_site_names_exists_and_every_page_is_in_the_site():
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)\)", README))
    assert linked, "the README sends readers to the docs"
    nav = set(re.findall(r":\s*([\w.-]+\.md)\s*$", text_of(ROOT / "mkdocs.yml"), flags=re.MULTILINE))
    pages = {p.name for p in PAGES}
    assert linked <= pages, linked - pages
    assert nav == pages, (nav ^ pages)


def test_the_configuration_reference_is_what_the_config_model_says():
    done = subprocess.run([sys.executable, "scripts/make_config_reference.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_full_rubric_example_is_valid():
    rubrics = text_of(DOCS / "rubrics.md")
    block = rubrics.split("A full example, with every form of criterion:\n\n```yaml\n", 1)[1].split("```", 1)[0]
    rubric, warnings = parse_rubric(yaml.safe_load(block), "docs/rubrics.md")
    assert warnings == []
    assert {c.kind for c in rubric.criteria} == {"checklist", "scored", "levels"}
    assert {c.scoring for c in rubric.criteria} == {"llm", "deterministic", "schema"}


def test_the_docs_have_python_examples():
    assert len(BLOCKS) >= 3 and any("from council import Council" in code for _f, _i, code in BLOCKS)
    assert any(file == "README.md" for file, _i, _c in BLOCKS)


@pytest.mark.parametrize(("file", "index", "code"), BLOCKS, ids=[f"{f}-{i}" for f, i, _c in BLOCKS])
def test_every_python_block_runs(file, index, code, tmp_path):
    """Each block runs as written, in a fresh interpreter, on the simulated council (no network, no keys)."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "COUNCIL_DB_PATH": str(tmp_path / "c.db")}
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    if "asyncio.run(main())" in code:
        assert done.stdout.strip(), "the example prints its result"
        assert "council:" not in done.stdout, done.stdout  # the except branch of an example did not run


def docs_imports(text: str) -> list[tuple[str, list[str]]]:
    """(module, names) of every ``from council... import ...`` the text shows, in code blocks and inline alike."""
    block = r"^\s*from (council[\w.]*) import \(?([\w, \n]+?)\)?\s*$"
    inline = r"`from (council[\w.]*) import ([\w, ]+)`"
    found = re.findall(f"{block}|{inline}", text, flags=re.MULTILINE)
    return [(block_module or inline_module, [n.strip() for n in (block_names or inline_names).split(",") if n.strip()])
            for block_module, block_names, inline_module, inline_names in found]


def not_public(module: str, names: list[str]) -> list[str]:
    """The names that ``module`` does not offer publicly: a package's ``__all__``, never an internal module's."""
    imported = importlib.import_module(module)
    if not hasattr(imported, "__path__"):
        return [f"{module} is a module inside a package, not a package's public names"]
    return [f"{module}.{name}" for name in names if name not in getattr(imported, "__all__", ())]


def test_the_docs_import_only_public_names():
    shown = [(path.name, module, names) for path in [ROOT / "README.md", *PAGES]
             for module, names in docs_imports(text_of(path))]
    assert len(shown) >= 5, "the finder sees the docs' imports"
    internal = [f"{page}: {problem}" for page, module, names in shown for problem in not_public(module, names)]
    assert internal == []


def test_the_public_import_check_finds_an_internal_import():
    text = "```python\nfrom council.evals.runner import EvalRunner\nfrom council import Council\n```\n" \
           "or `from council.pipeline import judge_answer, Secret`"
    shown = docs_imports(text)
    assert shown == [("council.evals.runner", ["EvalRunner"]), ("council", ["Council"]),
                     ("council.pipeline", ["judge_answer", "Secret"])]
    assert [not_public(module, names) for module, names in shown] == [
        ["council.evals.runner is a module inside a package, not a package's public names"], [],
        ["council.pipeline.Secret"]]


def test_every_council_command_a_config_file_shows_is_one_the_cli_accepts():
    import shlex

    from council.cli.app import _parser

    shown = []
    for path in sorted((ROOT / "config").glob("*.yaml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.lstrip("# ").split("   (")[0].strip()
            if text.startswith("council "):
                shown.append((path.name, text))
    assert shown, "the config files show how to run Council"
    for name, command in shown:
        try:
            _parser().parse_args(shlex.split(command)[1:])
        except SystemExit as refused:
            raise AssertionError(f"{name} shows `{command}`, which the CLI refuses") from refused
