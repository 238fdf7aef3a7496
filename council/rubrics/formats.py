"""Other systems' rubric files, read as they are written and turned into Council's rubric model at load time.

Two formats besides Council's own are understood:

* **AgentV eval files**: ``execution.evaluators[]`` of ``type: rubric`` with
  ``rubrics`` (plain strings, or objects with ``id``, ``expected_outcome``,
  ``weight``, ``required`` and 0–10 ``score_ranges``), optional ``evalcases``
  with their own inline ``rubrics``, which combine with the file-level ones;
  also a bare ``rubrics:`` list or top-level ``evaluators:``. AgentV's rules
  come with them as data on the rubric: a required criterion fails the
  verdict only at score 0 (``required_rule: nonzero``), and score-range keys
  are described points, not bands that must cover 0–10
  (``range_keys: anchors``). Ids are kept exactly as written.
* **dataknobs rubrics**: ``id``, ``name``, ``description``, semver
  ``version``, ``target_type``, ``pass_threshold``, ``metadata`` and
  ``criteria`` whose ``levels`` carry ``indicators`` and whose
  ``scoring_method`` says how they are scored; or a config file holding
  several under ``rubrics:``. The fields dataknobs requires are required
  here too, each named when missing; a ``schema_ref`` is resolved
  (:mod:`council.rubrics.schemas`).

This is one engine: each format becomes the same :class:`~council.rubrics.model.Rubric`
data, so checking, scoring and verdicts are Council's. A problem is named in
the format's own vocabulary (``execution.evaluators[0].rubrics[2].weight``,
``criteria[1].scoring_method.type``) with the file it is in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from council.errors import ConfigError
from council.rubrics.model import CRITERION_ID, slug
from council.rubrics.schemas import resolve_schema_ref

Format = Literal["council", "agentv", "dataknobs"]

_AGENTV_ITEM_KEYS = frozenset({"id", "expected_outcome", "weight", "required", "score_ranges", "description"})
_DATAKNOBS_TOP = frozenset({"id", "name", "description", "version", "target_type", "criteria", "pass_threshold",
                            "metadata"})
_DATAKNOBS_CRITERION = frozenset({"id", "name", "description", "weight", "levels", "scoring_method", "required"})
_DATAKNOBS_METHOD = frozenset({"type", "function_ref", "schema", "schema_ref", "decode_prompt",
                               "decode_output_schema"})
_DATAKNOBS_REQUIRED_TOP = ("id", "name", "description", "version", "target_type", "criteria", "pass_threshold")
_DATAKNOBS_REQUIRED_CRITERION = ("id", "name", "description", "weight", "levels", "scoring_method")
_DATAKNOBS_REQUIRED_LEVEL = ("id", "label", "description", "score")
_VERSION_PARTS = re.compile(r"^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$")


@dataclass(frozen=True)
class FoundRubric:
    """One rubric a file holds, already in Council's shape, with where it came from."""

    where: str
    data: dict[str, Any]


def detect_format(raw: dict[str, Any]) -> Format:
    """Which format a parsed rubric file is written in."""
    if "execution" in raw or "evalcases" in raw or "evaluators" in raw:
        return "agentv"
    if "rubrics" in raw and "criteria" not in raw:
        items = raw["rubrics"]
        if isinstance(items, list) and items and all(isinstance(i, dict) and "criteria" in i for i in items):
            return "dataknobs"
        return "agentv"
    criteria = raw.get("criteria")
    if isinstance(criteria, list) and any(isinstance(c, dict) and "scoring_method" in c for c in criteria):
        return "dataknobs"
    return "council"


def rubrics_in(raw: dict[str, Any], source: str) -> list[FoundRubric]:
    """Every rubric ``raw`` holds, converted to Council's shape; a ConfigError names what is wrong."""
    kind = detect_format(raw)
    if kind == "agentv":
        return _agentv(raw, source)
    if kind == "dataknobs":
        if "rubrics" in raw and "criteria" not in raw:
            return [FoundRubric(f"rubrics[{i}]", _dataknobs(item, source, f"rubrics[{i}].")) for i, item in
                    enumerate(raw["rubrics"])]
        return [FoundRubric("", _dataknobs(raw, source, ""))]
    return [FoundRubric("", _council_schema_refs(raw, source))]


def agentv_case_rubrics(raw: dict[str, Any], source: str) -> dict[str, list[FoundRubric]]:
    """For each AgentV evalcase id, the rubrics its answer is judged by.

    A case with inline rubrics has its combined rubric (file-level criteria
    plus its own); any other case has every file-level rubric evaluator.
    """
    found = _agentv(raw, source)
    shared = [f for f in found if "evalcase" not in f.data["metadata"]]
    own = {f.data["metadata"]["evalcase"]: f for f in found if "evalcase" in f.data["metadata"]}
    cases = raw.get("evalcases") or []
    return {str(case.get("id") or index): [own[str(case.get("id") or index)]]
            if str(case.get("id") or index) in own else shared
            for index, case in enumerate(cases) if isinstance(case, dict)}


def semver(version: Any) -> str:
    """A version as semver: AgentV writes ``"1.0"``; ``1`` and ``v2.1`` are read the same way."""
    match = _VERSION_PARTS.match(str(version)) if version is not None else None
    if match is None:
        return "1.0.0"
    return ".".join(part or "0" for part in match.groups())


# -- AgentV ----------------------------------------------------------------------------------------------------

def _agentv_items(items: Any, source: str, where: str) -> list[dict[str, Any]]:
    if not isinstance(items, list):
        raise ConfigError(source, f"{where}: must be a list of rubric items (strings or objects)")
    criteria: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        at = f"{where}[{index}]"
        if isinstance(item, str):
            if not item.strip():
                raise ConfigError(source, f"{at}: an empty rubric string")
            criteria.append({"id": slug(item), "expected_outcome": item.strip()})
            continue
        if not isinstance(item, dict):
            raise ConfigError(source, f"{at}: must be a string or an object with id and expected_outcome")
        unknown = sorted(set(item) - _AGENTV_ITEM_KEYS, key=str)
        if unknown:
            raise ConfigError(source, f"{at}.{unknown[0]}: not an AgentV rubric field "
                                      f"(id, expected_outcome, weight, required, score_ranges)")
        for key in ("id", "expected_outcome"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise ConfigError(source, f"{at}.{key}: required, a non-empty string")
        if not re.fullmatch(CRITERION_ID, item["id"]):
            raise ConfigError(source, f"{at}.id: {item['id']!r} is not usable as an id: letters, digits, spaces, "
                                      "_ - . (up to 64, starting with a letter or digit); it is a ballot key")
        # The id as written: bug-detection stays bug-detection, and a-b and a_b are two criteria.
        criterion: dict[str, Any] = {"id": item["id"], "name": item["id"], "expected_outcome": item["expected_outcome"]}
        for key in ("weight", "required", "score_ranges", "description"):
            if key in item:
                criterion[key] = item[key]
        criteria.append(criterion)
    ids = [c["id"] for c in criteria]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ConfigError(source, f"{where}: rubric ids {', '.join(repeated)} are repeated")
    return criteria


def _agentv_rubric(rubric_id: str, name: str, version: str, criteria: list[dict[str, Any]],
                   origin: dict[str, Any]) -> dict[str, Any]:
    analytic = any("score_ranges" in c for c in criteria)
    return {
        "id": rubric_id, "name": name, "version": version, "criteria": criteria,
        # AgentV's score ranges run 0 to 10 and map linearly to 0-1.
        **({"scale": {"min": 0, "max": 10}} if analytic else {}),
        # AgentV's rules: a required criterion fails the verdict only at score 0; score-range keys describe points.
        "required_rule": "nonzero", "range_keys": "anchors",
        # AgentV documents no pass threshold, only the required-criterion override: Council's default applies.
        "metadata": {"format": "agentv", **origin},
    }


def _agentv(raw: dict[str, Any], source: str) -> list[FoundRubric]:
    name = str(raw.get("name") or "agentv-eval")
    base_id = re.sub(r"[^A-Za-z0-9_.-]", "-", name)[:64].strip("-") or "agentv-eval"
    version = semver(raw.get("version"))
    origin = {"agentv_version": str(raw["version"])} if "version" in raw else {}
    execution = raw.get("execution", {"evaluators": raw["evaluators"]} if "evaluators" in raw else None)
    file_level: list[dict[str, Any]] = []
    found: list[FoundRubric] = []
    if execution is None and "rubrics" in raw:
        file_level = _agentv_items(raw["rubrics"], source, "rubrics")
        found.append(FoundRubric("rubrics", _agentv_rubric(base_id, name, version, file_level, origin)))
    elif execution is not None:
        prefix = "execution.evaluators" if "execution" in raw else "evaluators"
        evaluators = execution.get("evaluators") if isinstance(execution, dict) else None
        if not isinstance(evaluators, list):
            raise ConfigError(source, f"{prefix}: must be a list of evaluators")
        for index, evaluator in enumerate(evaluators):
            at = f"{prefix}[{index}]"
            if not isinstance(evaluator, dict):
                raise ConfigError(source, f"{at}: must be an object with name, type and rubrics")
            if evaluator.get("type", "rubric") != "rubric":
                continue  # other AgentV evaluators (code, llm judges) are not rubrics
            items = _agentv_items(evaluator.get("rubrics"), source, f"{at}.rubrics")
            label = str(evaluator.get("name") or f"evaluator_{index}")
            file_level += items
            found.append(FoundRubric(at, _agentv_rubric(f"{base_id}.{label}"[:64], label, version, items,
                                                        {**origin, "evaluator": label})))
    for index, case in enumerate(raw.get("evalcases") or []):
        if not isinstance(case, dict) or "rubrics" not in case:
            continue
        at = f"evalcases[{index}]"
        case_id = str(case.get("id") or index)
        inline = _agentv_items(case["rubrics"], source, f"{at}.rubrics")
        combined = file_level + [c for c in inline if c["id"] not in {f["id"] for f in file_level}]
        found.append(FoundRubric(at, _agentv_rubric(f"{base_id}.{case_id}"[:64], f"{name}: {case_id}", version,
                                                    combined, {**origin, "evalcase": case_id})))
    if not found:
        raise ConfigError(source, "no rubric found: an AgentV eval file needs an evaluator of type rubric "
                                  "(execution.evaluators[].rubrics) or evalcases with rubrics")
    return found


# -- dataknobs -------------------------------------------------------------------------------------------------

def _dataknobs(raw: Any, source: str, prefix: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(source, f"{prefix or 'the file'}: a dataknobs rubric must be an object")
    unknown = sorted(set(raw) - _DATAKNOBS_TOP, key=str)
    if unknown:
        raise ConfigError(source, f"{prefix}{unknown[0]}: not a dataknobs rubric field")
    _require(raw, _DATAKNOBS_REQUIRED_TOP, source, prefix, "rubric")
    criteria = raw["criteria"]
    if not isinstance(criteria, list):
        raise ConfigError(source, f"{prefix}criteria: must be a list of criteria")
    converted = {key: raw[key] for key in ("id", "name", "description", "version", "target_type", "pass_threshold")
                 if key in raw}
    converted["metadata"] = {**(raw.get("metadata") or {}), "format": "dataknobs"}
    converted["criteria"] = [_dataknobs_criterion(c, source, f"{prefix}criteria[{i}]") for i, c in enumerate(criteria)]
    return converted


def _dataknobs_criterion(raw: Any, source: str, at: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(source, f"{at}: a criterion must be an object")
    unknown = sorted(set(raw) - _DATAKNOBS_CRITERION, key=str)
    if unknown:
        raise ConfigError(source, f"{at}.{unknown[0]}: not a dataknobs criterion field")
    where = f"{at} ({raw.get('id', '?')})"
    _require(raw, _DATAKNOBS_REQUIRED_CRITERION, source, f"{where}.", "criterion")
    if not isinstance(raw["levels"], list) or not raw["levels"]:
        raise ConfigError(source, f"{where}.levels: must list the quality levels, from lowest to highest score")
    for index, level in enumerate(raw["levels"]):
        if not isinstance(level, dict):
            raise ConfigError(source, f"{where}.levels[{index}]: a level must be an object")
        _require(level, _DATAKNOBS_REQUIRED_LEVEL, source, f"{where}.levels[{index}].", "level")
    criterion: dict[str, Any] = {key: raw[key] for key in ("id", "name", "description", "weight", "levels")
                                 if key in raw}
    # dataknobs' `required` means "must be evaluated" (every criterion is); the verdict is the weighted
    # score against the threshold alone, so no criterion overrides it as Council's `required` would.
    method = raw.get("scoring_method")
    if not isinstance(method, dict):
        raise ConfigError(source, f"{where}.scoring_method: required, an object with a type")
    unknown = sorted(set(method) - _DATAKNOBS_METHOD, key=str)
    if unknown:
        raise ConfigError(source, f"{where}.scoring_method.{unknown[0]}: not a dataknobs scoring_method field")
    kind = str(method.get("type", "")).lower()
    if kind == "deterministic":
        if not method.get("function_ref"):
            raise ConfigError(source, f"{where}.scoring_method.function_ref: required for deterministic scoring")
        criterion.update(scoring="deterministic", function=method["function_ref"])
    elif kind == "schema":
        criterion.update(scoring="schema", **_schema_of(method, source, f"{where}.scoring_method."))
    elif kind == "llm_decode":
        if not method.get("decode_prompt"):
            raise ConfigError(source, f"{where}.scoring_method.decode_prompt: required for llm_decode scoring")
        criterion.update(scoring="llm_decode", decode_prompt=method["decode_prompt"])
        if method.get("decode_output_schema") is not None:
            criterion["decode_output_schema"] = method["decode_output_schema"]
    else:
        raise ConfigError(source, f"{where}.scoring_method.type: must be deterministic, schema or llm_decode, "
                                  f"got {kind or 'nothing'!r}")
    return criterion


def _require(raw: dict[str, Any], fields: tuple[str, ...], source: str, at: str, what: str) -> None:
    """A ConfigError naming the first field dataknobs requires that ``raw`` lacks (null counts as missing)."""
    for field in fields:
        if raw.get(field) is None:
            raise ConfigError(source, f"{at}{field}: missing; a dataknobs {what} requires it "
                                      f"({', '.join(fields)})")


def _schema_of(holder: dict[str, Any], source: str, at: str) -> dict[str, Any]:
    """``{"schema": ...}`` from an inline ``schema`` or a resolved ``schema_ref`` (recorded beside it)."""
    inline, ref = holder.get("schema"), holder.get("schema_ref")
    if inline is not None and ref is not None:
        raise ConfigError(source, f"{at}schema_ref: give schema or schema_ref, not both")
    if inline is not None:
        return {"schema": inline}
    if ref is None:
        raise ConfigError(source, f"{at}schema: required for schema scoring (or schema_ref naming one)")
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(source, f"{at}schema_ref: must be a schema name or a path, got {ref!r}")
    try:
        return {"schema": resolve_schema_ref(ref, source), "schema_ref": ref}
    except ValueError as error:
        raise ConfigError(source, f"{at}schema_ref: cannot be resolved: {error}") from None


def _council_schema_refs(raw: dict[str, Any], source: str) -> dict[str, Any]:
    """A Council-format rubric with each criterion's ``schema_ref`` resolved, as in a dataknobs file."""
    criteria = raw.get("criteria")
    if not isinstance(criteria, list) or not any(isinstance(c, dict) and c.get("schema_ref") is not None
                                                 for c in criteria):
        return raw
    resolved = [{**c, **_schema_of(c, source, f"criteria[{i}] ({c.get('id', '?')}).")}
                if isinstance(c, dict) and c.get("schema_ref") is not None else c for i, c in enumerate(criteria)]
    return {**raw, "criteria": resolved}
