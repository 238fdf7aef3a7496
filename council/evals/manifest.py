"""The reproducibility record of an evaluation run.

A manifest is written before the first sample runs and completed at the
end. It records the run id and UTC timestamp; the dataset's id, path and
SHA-256; the config's path and hash (without storage, logging and server
settings, which do not change answers); every member's model id and each
version its provider reported, with a warning for floating aliases; the
evaluator; the prompt template hashes and the rubric; the generation
parameters; the repeat count, concurrency and thresholds; the code version
(the git SHA, and whether the checkout had uncommitted changes, when the
package runs from a git checkout; otherwise the package version); and the
environment (Python, platform, key package versions; never environment
variables, which may hold keys).
"""

from __future__ import annotations

import hashlib
import platform
import re
import secrets
import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from council._version import __version__
from council.assets import prompt_hash
from council.config import CouncilConfig
from council.evals.dataset import Dataset
from council.evals.leaderboard import BOOTSTRAP_SEED, CONFIDENCE, N_RESAMPLES
from council.evals.metrics import Thresholds
from council.evals.records import Mode, ModelRecord, RunManifest
from council.pipeline.orchestrator import PROMPTS
from council.review.evaluation import TEMPLATE
from council.rubrics.model import Rubric
from council.types import GenerationParams

DEFAULT_PARAMS = GenerationParams(temperature=0.0, top_p=1.0, max_tokens=1024, seed=42)
"""Generation defaults of every evaluation call: greedy, full nucleus, 1024 tokens, seed 42 where supported."""
PACKAGES = ("council", "numpy", "pydantic", "aiohttp", "tenacity", "PyYAML", "rich")
_FLOATING = {"latest"}


def new_run_id(now: datetime | None = None) -> str:
    """A readable, sortable and unique run id: UTC time and 6 random hex digits."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def config_hash(config: CouncilConfig) -> str:
    """SHA-256 (16 hex) of the settings that can change answers."""
    body = config.model_dump_json(exclude={"storage", "logging", "server"})
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def code_version() -> dict[str, object]:
    """The git SHA (and whether the tree is dirty) when running from a checkout, else the package version."""
    root = Path(__file__).resolve().parents[2]
    found: dict[str, object] = {"package_version": __version__, "git_sha": None, "git_dirty": None}
    if not (root / ".git").exists():
        return {**found, "source": "package"}
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=5, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {**found, "source": "package"}
    return {**found, "git_sha": sha, "git_dirty": bool(status.strip()), "source": "git"}


def environment() -> dict[str, object]:
    """Python, platform and the versions of the packages that shape results."""
    packages: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "machine": platform.machine(), "packages": packages}


def is_floating(model: str) -> bool:
    """True for a model id that names a moving target, such as ``...-latest`` or ``llama3:latest``."""
    return bool(_FLOATING & set(re.split(r"[-:/@._]", model.lower())))


def _same_model(reported: str, configured: str) -> bool:
    reported, configured = reported.lower(), configured.lower()
    return reported == configured or reported.endswith("/" + configured) or configured.endswith("/" + reported)


def alias_warnings(models: Iterable[ModelRecord]) -> list[str]:
    """A warning for each model that is a floating alias, or that the provider served under another version."""
    warnings = []
    for model in models:
        other = [v for v in model.versions if not _same_model(v, model.model)]
        if model.floating_alias:
            warnings.append(f"{model.member}: model {model.model!r} is a floating alias; results can change "
                            f"when it moves, pin a dated version")
        elif other:
            warnings.append(f"{model.member}: model {model.model!r} was served as {', '.join(sorted(other))}; "
                            f"it is an alias that can move, pin that version")
        if len(model.versions) > 1:
            warnings.append(f"{model.member}: the provider reported {len(model.versions)} versions during the run "
                            f"({', '.join(sorted(model.versions))})")
    return warnings


def role_warnings(config: CouncilConfig, mode: Mode, members: list[str], evaluator: str) -> list[str]:
    """A warning when the evaluator scores answers it wrote itself."""
    if mode == "council" and evaluator == config.chairman:
        return [f"the evaluator {evaluator} is also the chairman, so it scores final answers it wrote; "
                f"--evaluator picks another member"]
    if mode == "judge" and evaluator in members:
        return [f"the judge {evaluator} also answers, so it scores its own answers too; --members can leave it out"]
    return []


def model_record(config: CouncilConfig, member: str, versions: Iterable[str] = ()) -> ModelRecord:
    """The model record of one member, with the versions seen so far."""
    spec = config.member(member)
    return ModelRecord(member=member, provider=spec.provider, model=spec.model, versions=sorted(set(versions)),
                       floating_alias=is_floating(spec.model))


def build_manifest(
    *,
    run_id: str,
    mode: Mode,
    config: CouncilConfig,
    config_path: str,
    dataset: Dataset,
    members: list[str],
    evaluator: str,
    judge: str | None,
    rubric: Rubric,
    repeat: int,
    concurrency: int,
    sample_timeout_s: float,
    thresholds: Thresholds,
    params: GenerationParams = DEFAULT_PARAMS,
) -> RunManifest:
    """The manifest of a new run (model versions and alias warnings are completed at the end)."""
    models = [model_record(config, m) for m in members]
    warnings = alias_warnings([*models, model_record(config, evaluator)]) + role_warnings(
        config, mode, members, evaluator)
    hashes = {TEMPLATE: prompt_hash(TEMPLATE)}
    if mode == "council":
        hashes.update({name: prompt_hash(name) for name in PROMPTS})
    return RunManifest(
        run_id=run_id,
        timestamp_utc=datetime.now(UTC),
        mode=mode,
        dataset_id=dataset.dataset_id,
        dataset_hash=dataset.dataset_hash,
        dataset_path=str(dataset.path.resolve()),
        n_samples=len(dataset),
        config_path=str(Path(config_path).resolve()),
        config_hash=config_hash(config),
        simulated=all(config.member(m).provider == "simulated" for m in {*members, evaluator}),
        members=members,
        models=models,
        evaluator=model_record(config, evaluator),
        judge=judge,
        prompt_hashes=hashes,
        rubric={"id": rubric.id, "version": rubric.version, "hash": rubric.content_hash()} if mode == "council" else {},
        aggregation_method=config.review.aggregation,
        generation_params=params,
        repeat=repeat,
        concurrency=concurrency,
        sample_timeout_s=sample_timeout_s,
        thresholds=thresholds,
        bootstrap={"n_resamples": N_RESAMPLES, "confidence": CONFIDENCE, "seed": BOOTSTRAP_SEED},
        code_version=code_version(),
        environment=environment(),
        warnings=warnings,
    )
