"""Rubrics: the overall-score arithmetic, ceilings, and strict loading with messages that name the problem."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from council.errors import ConfigError
from council.rubric import Rubric, load_rubric, rubrics_dir

DEFAULT_WEIGHTS = {"accuracy": 0.35, "relevance": 0.10, "completeness": 0.20, "conciseness": 0.15, "clarity": 0.20}

SMALL = {
    "id": "small",
    "name": "Small",
    "version": "0.1.0",
    "dimensions": [
        {"id": "depth", "name": "Depth", "weight": 1, "description": "How deep.", "anchors": {1: "flat", 10: "deep"}},
        {"id": "care", "name": "Care", "weight": 3, "description": "How careful.", "anchors": {1: "rash", 10: "exact"}},
    ],
}


def scores(accuracy: int, rest: int) -> dict[str, int]:
    return {"accuracy": accuracy, "relevance": rest, "completeness": rest, "conciseness": rest, "clarity": rest}


def write_rubric(tmp_path: Path, data: dict | str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def load_error(tmp_path: Path, data: dict | str) -> str:
    path = write_rubric(tmp_path, data)
    with pytest.raises(ConfigError) as caught:
        load_rubric(str(path))
    message = str(caught.value)
    assert str(path) in message, "a rubric error names its file"
    return message


def with_first_dimension(**changes: object) -> dict:
    data = yaml.safe_load(yaml.safe_dump(SMALL))
    data["dimensions"][0].update(changes)
    return data


# --- the default rubric --------------------------------------------------------------------------------------------


def test_default_rubric_loads_with_the_documented_weights_and_ceilings():
    rubric = load_rubric("default")
    assert (rubric.id, rubric.version, rubric.scale_min, rubric.scale_max) == ("default", "1.0.0", 1, 10)
    assert {d.id: d.weight for d in rubric.dimensions} == DEFAULT_WEIGHTS
    assert rubric.dimension_ids() == list(DEFAULT_WEIGHTS)
    assert [(c.dimension, c.below, c.cap) for c in rubric.ceilings] == [("accuracy", 5, 4.0), ("accuracy", 7, 7.0)]


def test_default_rubric_anchors_cover_both_ends_of_the_scale():
    for dimension in load_rubric("default").dimensions:
        assert min(dimension.anchors) == 1 and max(dimension.anchors) == 10, dimension.id
        assert len(dimension.anchors) >= 4 and all(text.strip() for text in dimension.anchors.values())


def test_content_hash_is_stable_and_changes_with_the_content():
    rubric = load_rubric("default")
    assert rubric.content_hash() == load_rubric("default").content_hash()
    assert len(rubric.content_hash()) == 16 and int(rubric.content_hash(), 16) >= 0
    changed = rubric.model_copy(update={"version": "1.0.1"})
    assert changed.content_hash() != rubric.content_hash()


# --- overall arithmetic --------------------------------------------------------------------------------------------


def test_overall_is_the_weighted_mean():
    rubric = load_rubric("default")
    # 0.35*8 + 0.10*6 + 0.20*7 + 0.15*5 + 0.20*9 = 2.8 + 0.6 + 1.4 + 0.75 + 1.8
    ballot = {"accuracy": 8, "relevance": 6, "completeness": 7, "conciseness": 5, "clarity": 9}
    assert rubric.overall(ballot) == 7.35
    assert rubric.overall(scores(7, 7)) == 7.0


def weighted(depth: float, care: float) -> Rubric:
    first, second = SMALL["dimensions"]
    return Rubric.model_validate({**SMALL, "dimensions": [{**first, "weight": depth}, {**second, "weight": care}]})


def test_weights_need_not_sum_to_one():
    assert weighted(1, 3).overall({"depth": 2, "care": 6}) == 5.0  # (1*2 + 3*6) / 4
    assert weighted(1, 3).overall({"depth": 1, "care": 2}) == 1.75  # (1 + 6) / 4
    assert weighted(2, 3).overall({"depth": 1, "care": 2}) == 1.6  # (2 + 6) / 5


def test_overall_is_rounded_to_two_decimals():
    assert weighted(1, 2).overall({"depth": 1, "care": 2}) == 1.67  # 5 / 3
    assert weighted(2, 1).overall({"depth": 1, "care": 2}) == 1.33  # 4 / 3


def test_low_accuracy_caps_the_overall_score_at_4():
    rubric = load_rubric("default")
    assert rubric.overall(scores(4, 10)) == 4.0  # 7.9 uncapped
    assert rubric.overall(scores(3, 10)) == 4.0  # 7.55 uncapped
    assert rubric.overall(scores(1, 1)) == 1.0  # a cap never raises a score


def test_middling_accuracy_caps_the_overall_score_at_7():
    rubric = load_rubric("default")
    assert rubric.overall(scores(5, 10)) == 7.0  # 8.25 uncapped; 5 is not below 5
    assert rubric.overall(scores(6, 10)) == 7.0  # 8.6 uncapped
    assert rubric.overall(scores(7, 10)) == 8.95  # 7 is not below 7: no cap
    assert rubric.overall(scores(6, 1)) == 2.75  # 0.35*6 + 0.65*1, already under the cap


def test_overall_refuses_missing_or_unknown_dimensions():
    rubric = load_rubric("default")
    partial = scores(7, 7)
    del partial["clarity"]
    with pytest.raises(ValueError, match="clarity"):
        rubric.overall(partial)
    with pytest.raises(ValueError, match="style"):
        rubric.overall({**scores(7, 7), "style": 3})


# --- loading -------------------------------------------------------------------------------------------------------


def test_unknown_key_names_file_and_key_path(tmp_path):
    data = yaml.safe_load(yaml.safe_dump(SMALL))
    data["dimensions"][1]["wieght"] = data["dimensions"][1].pop("weight")
    message = load_error(tmp_path, data)
    assert "dimensions[1].wieght: unknown key; allowed keys: id, name, weight, description, anchors" in message
    assert "dimensions[1].weight: required key is missing" in message


def test_non_positive_weight_names_its_path(tmp_path):
    message = load_error(tmp_path, with_first_dimension(weight=-0.5))
    assert "dimensions[0].weight: input should be greater than 0, got -0.5" in message
    message = load_error(tmp_path, with_first_dimension(weight=0))
    assert "dimensions[0].weight: input should be greater than 0, got 0" in message


def test_ceiling_on_an_unknown_dimension_names_its_path(tmp_path):
    message = load_error(tmp_path, {**SMALL, "ceilings": [{"dimension": "dept", "below": 5, "cap": 4}]})
    assert "ceilings[0].dimension: no dimension 'dept'; dimensions are: depth, care" in message


def test_ceiling_keys_are_strict_and_caps_stay_on_the_scale(tmp_path):
    message = load_error(tmp_path, {**SMALL, "ceilings": [{"dimension": "depth", "under": 5, "cap": 4}]})
    assert "ceilings[0].under: unknown key; allowed keys: dimension, below, cap" in message
    message = load_error(tmp_path, {**SMALL, "ceilings": [{"dimension": "depth", "below": 5, "cap": 40}]})
    assert "ceilings[0].cap: outside the scale 1 to 10, got 40" in message


def test_duplicate_dimension_ids_are_refused(tmp_path):
    data = yaml.safe_load(yaml.safe_dump(SMALL))
    data["dimensions"][1]["id"] = "depth"
    assert "dimensions[1].id: 'depth' is already used by dimensions[0]" in load_error(tmp_path, data)


def test_anchors_must_lie_on_the_scale(tmp_path):
    message = load_error(tmp_path, with_first_dimension(anchors={0: "none", 11: "beyond"}))
    assert "dimensions[0].anchors.0: outside the scale 1 to 10" in message
    assert "dimensions[0].anchors.11: outside the scale 1 to 10" in message


def test_reserved_ids_and_bad_versions_are_refused(tmp_path):
    assert "dimensions[0].id: 'overall' is reserved" in load_error(tmp_path, with_first_dimension(id="overall"))
    assert "version: string should match pattern" in load_error(tmp_path, {**SMALL, "version": "1.0"})
    message = load_error(tmp_path, {**SMALL, "scale_min": 5, "scale_max": 5})
    assert "scale_max: must be above scale_min (5), got 5" in message


def test_every_problem_is_reported_at_once(tmp_path):
    data = with_first_dimension(weight=-1, anchors={12: "x"})
    data["ceilings"] = [{"dimension": "nope", "below": 5, "cap": 4}]
    message = load_error(tmp_path, data)
    assert "dimensions[0].weight" in message
    data = with_first_dimension(anchors={12: "x"})
    data["ceilings"] = [{"dimension": "nope", "below": 5, "cap": 4}]
    message = load_error(tmp_path, data)
    assert "dimensions[0].anchors.12" in message and "ceilings[0].dimension" in message


def test_invalid_yaml_names_file_and_line(tmp_path):
    assert "invalid YAML at line 3, column 1" in load_error(tmp_path, "id: x\nname: [unclosed\n")


def test_unknown_rubric_name_lists_the_shipped_ones():
    with pytest.raises(ConfigError) as caught:
        load_rubric("nonexistent")
    message = str(caught.value)
    assert str(rubrics_dir() / "nonexistent.yaml") in message and "available: default" in message


def test_a_name_that_is_neither_a_name_nor_a_path_is_refused():
    with pytest.raises(ConfigError, match="neither a rubric name"):
        load_rubric("my rubric!")


def test_relative_paths_are_taken_from_the_config_folder(tmp_path):
    (tmp_path / "rubrics").mkdir()
    write_rubric(tmp_path / "rubrics", SMALL, "small.yaml")
    rubric = load_rubric("rubrics/small.yaml", relative_to=tmp_path)
    assert rubric.id == "small" and rubric.dimension_ids() == ["depth", "care"]
    assert load_rubric(str(tmp_path / "rubrics" / "small.yaml")).id == "small"
    with pytest.raises(ConfigError, match="file not found"):
        load_rubric("rubrics/other.yaml", relative_to=tmp_path)


def test_models_are_frozen():
    rubric = load_rubric("default")
    with pytest.raises(ValidationError):
        rubric.dimensions[0].weight = 1.0  # type: ignore[misc]
