"""The README's examples stay true: its rubric example validates, its config table names real settings."""

from __future__ import annotations

from pathlib import Path

import yaml

from council.config import CouncilConfig
from council.rubric_check import parse_rubric

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


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
            from council.config import MemberConfig as model  # noqa: N813
        for name in field.split(" / ")[0].split("."):
            assert name in model.model_fields, key  # type: ignore[union-attr]
