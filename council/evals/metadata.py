"""The run metadata block: the evaluation spec's required fields, under the spec's names, from a run's manifest.

The spec lists fourteen names (:data:`SPEC_KEYS`); every one is present in
every run, as a string or, for ``generation_params`` and ``environment``, a
small object. Council's extras stand beside them (:data:`EXTRA_KEYS`), so a
reader that knows only the spec finds what it looks for and nothing renamed.

- ``model_id`` / ``model_version``: the model(s) under test: in judge mode
  with one member, its model id and the version its provider reported; with
  several (a council, or judge mode over several members) each one in member
  order, joined by `` + ``. A model whose provider reported no version reads
  ``unreported``; one that reported several, all of them joined by ``|``.
- ``prompt_template_id`` / ``prompt_template_version_or_hash``: the prompts
  of the system under test: in council mode the council's own templates
  (review, chairman, safety) and one hash over theirs; in judge mode the
  members get the task as written, so ``task-as-given`` and ``none``.
- ``environment``: ``region`` (``$COUNCIL_REGION``, else the config's
  ``evaluation.region``, else ``unknown``) and ``runtime`` (Python and the
  platform). The manifest keeps the package versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from council.config import CouncilConfig
from council.evals.records import ModelRecord, RunManifest
from council.review.evaluation import TEMPLATES

SPEC_KEYS = (
    "run_id", "timestamp_utc", "dataset_id", "dataset_version_or_hash", "model_id", "model_version",
    "evaluator_model_id", "evaluator_model_version", "prompt_template_id", "prompt_template_version_or_hash",
    "evaluator_prompt_template_version_or_hash", "generation_params", "code_version", "environment",
)
EXTRA_KEYS = ("mode", "evaluator_prompt_template_id", "models", "config_hash", "simulated")
ENV_REGION = "COUNCIL_REGION"
UNKNOWN = "unknown"
NO_TEMPLATE = ("task-as-given", "none")


def run_region(config: CouncilConfig, environ: Mapping[str, str]) -> str:
    """Where the run happens: ``$COUNCIL_REGION``, else the config's ``evaluation.region``, else ``unknown``."""
    return (environ.get(ENV_REGION) or "").strip() or config.evaluation.region or UNKNOWN


def _version(model: ModelRecord) -> str:
    return "|".join(model.versions) if model.versions else "unreported"


def _code_version(code: Mapping[str, Any]) -> str:
    version = str(code.get("git_sha") or code.get("package_version") or UNKNOWN)
    return f"{version} (uncommitted changes)" if code.get("git_dirty") else version


def _system_prompts(manifest: RunManifest) -> tuple[str, str]:
    evaluator_file = TEMPLATES[manifest.evaluator_template]
    own = {name: digest for name, digest in sorted(manifest.prompt_hashes.items()) if name != evaluator_file}
    if manifest.mode == "judge" or not own:
        return NO_TEMPLATE
    combined = hashlib.sha256("\n".join(f"{name} {digest}" for name, digest in own.items()).encode()).hexdigest()
    return "council:" + "+".join(name.removesuffix(".md") for name in own), combined[:16]


def run_metadata(manifest: RunManifest) -> dict[str, Any]:
    """The spec's fourteen run metadata fields, then Council's extras (module docstring)."""
    template_id, template_hash = _system_prompts(manifest)
    evaluator_file = TEMPLATES[manifest.evaluator_template]
    params = manifest.generation_params
    environment = manifest.environment
    runtime = f"{environment.get('implementation', 'Python')} {environment.get('python', '?')} on " \
              f"{environment.get('platform', '?')}"
    metadata: dict[str, Any] = {
        "run_id": manifest.run_id,
        "timestamp_utc": manifest.timestamp_utc.isoformat(),
        "dataset_id": manifest.dataset_id,
        "dataset_version_or_hash": f"sha256:{manifest.dataset_hash}",
        "model_id": " + ".join(m.model for m in manifest.models),
        "model_version": " + ".join(_version(m) for m in manifest.models),
        "evaluator_model_id": manifest.evaluator.model,
        "evaluator_model_version": _version(manifest.evaluator),
        "prompt_template_id": template_id,
        "prompt_template_version_or_hash": template_hash,
        "evaluator_prompt_template_version_or_hash": manifest.prompt_hashes.get(evaluator_file, UNKNOWN),
        "generation_params": {"temperature": params.temperature, "top_p": params.top_p,
                              "max_tokens": params.max_tokens, "seed": params.seed},
        "code_version": _code_version(manifest.code_version),
        "environment": {"region": str(environment.get("region") or UNKNOWN), "runtime": runtime},
        "mode": manifest.mode,
        "evaluator_prompt_template_id": f"{manifest.evaluator_template} ({evaluator_file})",
        "models": [m.model_dump(mode="json") for m in manifest.models],
        "config_hash": manifest.config_hash,
        "simulated": manifest.simulated,
    }
    return metadata
