"""Rubrics as data: the model, loading and validation (the meta-rubric), scoring outside the LLM, verdicts.

Also the deterministic check registry (:mod:`.functions`, Council's own
checks in :mod:`.checks`) and the catalog of rubrics a remote client may
name (:mod:`.catalog`). Knows nothing of providers or of how a council runs.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.rubrics.catalog import RubricCatalog, UnknownRubricError, shipped_rubrics
from council.rubrics.formats import detect_format
from council.rubrics.functions import register_check, resolve_function
from council.rubrics.load import (
    check_rubric,
    load_rubric,
    parse_rubric,
    parse_rubrics,
    print_warnings,
    read_rubrics,
    rubric_path,
    rubrics_dir,
)
from council.rubrics.meta import MetaScore, meta_rubric, meta_score
from council.rubrics.model import Criterion, CriterionValue, Rubric
from council.rubrics.schemas import register_schema
from council.rubrics.score import RubricVerdict, build_verdict

__all__ = ["Criterion", "CriterionValue", "MetaScore", "Rubric", "RubricCatalog", "RubricVerdict",
           "UnknownRubricError", "build_verdict", "check_rubric", "detect_format", "load_rubric", "meta_rubric",
           "meta_score", "parse_rubric", "parse_rubrics", "print_warnings", "read_rubrics", "register_check",
           "register_schema", "resolve_function", "rubric_path", "rubrics_dir", "shipped_rubrics"]
