"""The meta-rubric: checks every rubric when it is loaded, and the loader itself.

Errors stop the load with a message naming the file and the criterion;
warnings are printed and the rubric is used. ``council rubric check FILE``
runs the same checks on their own.

Errors: no criteria; repeated ids or names (ids differing only in case or
spacing count as repeated: a ballot cannot tell them apart); a negative
weight, or no criterion with a positive one;
fractional weights (``weight_mode: fractions``) that do not sum to 1 ± 0.01;
a pass threshold that no answer can reach, or that every answer reaches;
levels out of score order; score ranges that leave a gap in the scale or
overlap (with ``range_keys: anchors``, AgentV's reading, the keys are
described points and need not cover the scale); an LLM criterion without anchors (an expected outcome, band
descriptions or level descriptions); a deterministic function that cannot be
imported; an invalid JSON Schema; a gate naming an unknown criterion.
Warnings: fewer than three bands, a pass threshold below 0.5.
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from council.assets import config_dir
from council.config_errors import format_validation_error, read_yaml
from council.errors import ConfigError
from council.rubrics.functions import resolve_function
from council.rubrics.meta import score_range
from council.rubrics.model import LLM_SCORED

if TYPE_CHECKING:
    from council.rubrics.model import Criterion, Rubric


def _check_bands(rubric: Rubric, index: int, criterion: Criterion, errors: list[str], warnings: list[str]) -> None:
    from council.rubrics.bands import bands, parse_band

    where = f"criteria[{index}] ({criterion.id}).score_ranges"
    low, high = rubric.scale.min, rubric.scale.max
    for key in criterion.score_ranges or {}:
        band = parse_band(key)
        if band is None:
            errors.append(f"{where}: key {key!r} is neither a score nor a range like '3-4'")
            return
    spans = bands(criterion, low, high)
    expected = low
    for first, last, text in spans:
        if first < low or last > high:
            errors.append(f"{where}: band {first}-{last} is outside the scale {low} to {high}")
        if first > expected and rubric.range_keys == "bands":
            errors.append(f"{where}: scores {expected}-{first - 1} are not covered by any band")
        elif first < expected:
            errors.append(f"{where}: band {first}-{last} overlaps the band before it")
        if last < first:
            errors.append(f"{where}: band {first}-{last} is empty")
        if not text.strip() and criterion.scoring in LLM_SCORED:
            errors.append(f"{where}: band {first}-{last} has no description (reviewers need anchors)")
        expected = max(expected, last + 1)
    if expected <= high and rubric.range_keys == "bands":
        errors.append(f"{where}: scores {expected}-{high} are not covered by any band")
    if len(spans) < 3:
        warnings.append(f"{where}: only {len(spans)} band(s); reviewers score more consistently with 3 or more")


def _check_levels(index: int, criterion: Criterion, errors: list[str]) -> None:
    where = f"criteria[{index}] ({criterion.id}).levels"
    levels = criterion.levels or []
    ids = [level.id for level in levels]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        errors.append(f"{where}: level id {dup!r} is repeated")
    scores = [level.score for level in levels]
    if any(b < a for a, b in itertools.pairwise(scores)):
        errors.append(f"{where}: levels must be ordered by score, lowest first; got {scores}")
    if criterion.scoring in LLM_SCORED and not any(level.description.strip() for level in levels):
        errors.append(f"{where}: no level has a description (reviewers need anchors)")


def _check_schema(schema: dict[str, Any], where: str, errors: list[str]) -> None:
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        errors.append(f"{where}: not a valid JSON Schema: {exc.message}")


def _check_scoring(index: int, criterion: Criterion, errors: list[str]) -> None:
    where = f"criteria[{index}] ({criterion.id})"
    if criterion.scoring == "deterministic":
        if not criterion.function:
            errors.append(f"{where}.function: a deterministic criterion needs module:function")
        else:
            try:
                resolve_function(criterion.function)
            except ValueError as exc:
                errors.append(f"{where}.function: {exc}")
    elif criterion.scoring == "schema":
        if criterion.json_schema is None:
            errors.append(f"{where}.schema: a schema criterion needs a JSON Schema")
        else:
            _check_schema(criterion.json_schema, f"{where}.schema", errors)
    elif criterion.scoring == "llm_decode":
        if not criterion.levels:
            errors.append(f"{where}.levels: an llm_decode criterion classifies into levels; it needs some")
        if criterion.decode_prompt is not None:
            from council.rubrics.decode import template_problem

            problem = template_problem(criterion.decode_prompt)
            if problem:
                errors.append(f"{where}.decode_prompt: {problem}")
        if criterion.decode_output_schema is not None:
            _check_schema(criterion.decode_output_schema, f"{where}.decode_output_schema", errors)
    else:
        if criterion.function or criterion.json_schema is not None:
            errors.append(f"{where}: function and schema only apply to deterministic and schema scoring")
        if criterion.kind == "checklist" and not criterion.guidance:
            errors.append(f"{where}: an LLM checklist item needs expected_outcome or description (its anchor)")


def check_rubric(rubric: Rubric) -> tuple[list[str], list[str]]:
    """The meta-rubric: (errors, warnings), each naming the key path and criterion."""
    from council.rubrics.model import RESERVED_KEYS

    errors: list[str] = []
    warnings: list[str] = []
    if not rubric.criteria:
        errors.append("criteria: a rubric needs at least one criterion")
    if rubric.scale.min >= rubric.scale.max:
        errors.append(f"scale.max: must be above scale.min ({rubric.scale.min}), got {rubric.scale.max}")
    seen_ids: dict[str, int] = {}
    seen_keys: dict[str, int] = {}
    seen_names: dict[str, int] = {}
    for index, criterion in enumerate(rubric.criteria):
        where = f"criteria[{index}] ({criterion.id})"
        if criterion.id in seen_ids:
            errors.append(f"{where}.id: {criterion.id!r} is already used by criteria[{seen_ids[criterion.id]}]")
        seen_ids.setdefault(criterion.id, index)
        key = " ".join(criterion.id.split()).casefold()
        twin = rubric.criteria[seen_keys[key]].id if key in seen_keys else criterion.id
        if twin != criterion.id:
            errors.append(f"{where}.id: {criterion.id!r} differs from {twin!r} (criteria[{seen_keys[key]}]) only "
                          "in case or spacing; ballots could not tell them apart")
        seen_keys.setdefault(key, index)
        name = criterion.title.strip().lower()
        if name in seen_names:
            errors.append(f"{where}.name: {criterion.title!r} is already used by criteria[{seen_names[name]}]")
        seen_names.setdefault(name, index)
        if key in RESERVED_KEYS:
            errors.append(f"{where}.id: {criterion.id!r} is reserved for ballots")
        if criterion.weight < 0:
            errors.append(f"{where}.weight: must be 0 (informational) or more, got {criterion.weight}")
        if criterion.levels and criterion.score_ranges:
            errors.append(f"{where}: give levels or score_ranges, not both")
        if criterion.kind == "scored" and rubric.scale.min < rubric.scale.max:
            _check_bands(rubric, index, criterion, errors, warnings)
        if criterion.kind == "levels":
            _check_levels(index, criterion, errors)
        _check_scoring(index, criterion, errors)
        if criterion.min_score is not None:
            low, high = (rubric.scale.min, rubric.scale.max) if criterion.kind == "scored" else (0.0, 1.0)
            if not low <= criterion.min_score <= high:
                errors.append(f"{where}.min_score: {criterion.min_score} can never be reached (range {low} to {high})")
    if rubric.criteria and not any(c.weight > 0 for c in rubric.criteria):
        errors.append("criteria: no criterion has a positive weight; at least one must count toward the score")
    if rubric.weight_mode == "fractions" and rubric.criteria:
        total = sum(c.weight for c in rubric.criteria)
        if abs(total - 1.0) > 0.01:
            errors.append(f"criteria: weight_mode is fractions but the weights sum to {total:.3f}, not 1 ± 0.01")
    ids = [c.id for c in rubric.criteria]
    for index, ceiling in enumerate(rubric.gates.ceilings):
        if ceiling.criterion not in ids:
            errors.append(f"gates.ceilings[{index}].criterion: no criterion {ceiling.criterion!r}")
        if not rubric.scale.min <= ceiling.cap <= rubric.scale.max:
            errors.append(f"gates.ceilings[{index}].cap: outside the scale {rubric.scale.min} to {rubric.scale.max}")
    if not errors:
        _check_threshold(rubric, errors, warnings)
    return errors, warnings


def _check_threshold(rubric: Rubric, errors: list[str], warnings: list[str]) -> None:
    worst, best = score_range(rubric)
    if best < rubric.pass_threshold:
        errors.append(
            f"pass_threshold: {rubric.pass_threshold} cannot be reached; the best possible score is {best:.3f}"
        )
    elif rubric.pass_threshold <= worst:
        errors.append(
            f"pass_threshold: {rubric.pass_threshold} is trivially low; even the worst answer scores {worst:.3f}"
        )
    elif rubric.pass_threshold < 0.5:
        warnings.append(f"pass_threshold: {rubric.pass_threshold} passes answers that miss half of the rubric")


def rubrics_dir() -> Path:
    """The folder of shipped rubrics."""
    return config_dir() / "rubrics"


def is_rubric_path(ref: str) -> bool:
    """Whether a rubric reference is a file path (else it names a shipped or registered rubric)."""
    return "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))


def rubric_path(ref: str, relative_to: Path | None = None) -> Path:
    """The file a rubric reference points at: a shipped rubric's name, or a path (relative to ``relative_to``)."""
    if is_rubric_path(ref):
        path = Path(ref).expanduser()
        if not path.is_absolute() and relative_to is not None:
            path = relative_to / path
        return path
    return rubrics_dir() / f"{ref}.yaml"


def parse_rubric(raw: dict[str, Any], source: str) -> tuple[Rubric, list[str]]:
    """Validate raw rubric data in any known format; returns the rubric and its warnings, or raises ConfigError.

    A file that holds several rubrics (an AgentV eval file with evalcases, a
    dataknobs config) is refused here with their list: :func:`parse_rubrics` reads them all.
    """
    found = parse_rubrics(raw, source)
    if len(found) != 1:
        listed = ", ".join(f"{rubric.id} ({where})" for where, rubric, _ in found)
        raise ConfigError(source, f"the file holds {len(found)} rubrics ({listed}); use one file per rubric here, "
                                  "or `council rubric check` to check them all")
    _where, rubric, warnings = found[0]
    return rubric, warnings


def parse_rubrics(raw: dict[str, Any], source: str) -> list[tuple[str, Rubric, list[str]]]:
    """Every rubric in a file of any known format (Council, AgentV, dataknobs), checked: (where, rubric, warnings)."""
    checked = []
    for where, rubric, errors, warnings in read_rubrics(raw, source):
        if errors:
            raise ConfigError(f"{source}: {where}" if where else source, errors)
        checked.append((where, rubric, warnings))
    return checked


def read_rubrics(raw: dict[str, Any], source: str) -> list[tuple[str, Rubric, list[str], list[str]]]:
    """Every rubric in a file, with the meta-rubric's errors and warnings reported, not raised.

    (where, rubric, errors, warnings). Only what stops a rubric from being
    read at all raises ConfigError: a format problem, a field of the wrong type.
    """
    from council.rubrics.formats import rubrics_in
    from council.rubrics.model import Rubric

    read = []
    for found in rubrics_in(raw, source):
        try:
            rubric = Rubric.model_validate(found.data)
        except ValidationError as exc:
            where = f"{source}: {found.where}" if found.where else source
            raise ConfigError(where, format_validation_error(exc, Rubric)) from None
        errors, warnings = check_rubric(rubric)
        read.append((found.where, rubric, errors, warnings))
    return read


def print_warnings(source: str, warnings: list[str]) -> None:
    """Warnings go to stderr, named by file."""
    for warning in warnings:
        print(f"council: rubric warning in {source}: {warning}", file=sys.stderr)


def load_rubric(ref: str, relative_to: Path | None = None, *, quiet: bool = False) -> Rubric:
    """Load and check a rubric by shipped name (``default``) or path; warnings are printed."""
    from council.rubrics.model import RUBRIC_ID

    if not ref or (not is_rubric_path(ref) and re.fullmatch(RUBRIC_ID, ref.split("@")[0]) is None):
        raise ConfigError("rubric", f"{ref!r} is neither a rubric id (letters, digits, _ . -) nor a .yaml path")
    path = rubric_path(ref, relative_to)
    if not is_rubric_path(ref) and not path.is_file():
        available = sorted(p.stem for p in rubrics_dir().glob("*.yaml"))
        raise ConfigError(str(path), f"no rubric named {ref!r}; shipped rubrics: {', '.join(available)}")
    rubric, warnings = parse_rubric(read_yaml(path), str(path))
    if not quiet:
        print_warnings(str(path), warnings)
    return rubric
