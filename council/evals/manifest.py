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
from council.pipeline.new_run import prompts_of
from council.pipeline.plan import deliberation_of
from council.providers import PROVIDERS
from council.review.evaluation import TEMPLATES
from council.rubrics.model import Rubric
from council.types import GenerationParams

DEFAULT_PARAMS = GenerationParams(temperature=0.0, top_p=1.0, max_tokens=1024, seed=42)
"""Generation defaults of every evaluation call: greedy, full nucleus, 1024 tokens, seed 42 where supported."""
PACKAGES = ("council", "numpy", "pydantic", "aiohttp", "tenacity", "PyYAML", "rich")
_FLOATING = {"latest"}


SPEC_REPEATS = 3
"""The evaluation spec runs a benchmark at least three times for variance-sensitive tasks."""


def pinned_config(config: CouncilConfig, params: GenerationParams = DEFAULT_PARAMS) -> CouncilConfig:
    """``config`` with every member's own settings overridden by ``params``, as far as its wire format takes them.

    An evaluation run pins the generation settings of every call it makes:
    the answers and the chairman get them per request, and this carries them
    to the calls that use a member's own settings (its reviews, the safety
    gate's member, the reviews of rubric verdicts). A setting a member's wire
    format lacks (``seed`` on Anthropic) is left out for that member, as for
    answers. The config's hash is taken before, from the file as written.
    """
    members = [m.model_copy(update={"params": m.params.merged(params.without(
        PROVIDERS[m.provider].unsupported_params(params)))}) for m in config.members]
    return config.model_copy(update={"members": members})


def floating_models(config: CouncilConfig, members: Iterable[str]) -> list[str]:
    """``member (model)`` for each of ``members`` whose model id is a floating alias such as ``...-latest``."""
    return [f"{name} ({config.member(name).model})" for name in dict.fromkeys(members)
            if is_floating(config.member(name).model)]


def repeat_notice(repeat: int) -> str | None:
    """What to say when a gated run repeats fewer times than the evaluation spec asks; None when enough."""
    if repeat >= SPEC_REPEATS:
        return None
    return (f"--repeat {repeat}: the evaluation spec asks for at least {SPEC_REPEATS} repeats of a gated benchmark "
            f"run (mean and standard deviation of aggregate_score and latency_e2e_p95_ms); use --repeat "
            f"{SPEC_REPEATS} for a release decision")


def run_notices(repeat: int, evaluator_template: str, dataset: Dataset) -> list[str]:
    """What a run's options mean against the evaluation spec: too few repeats, rubric notes the template drops."""
    notices = [text] if (text := repeat_notice(repeat)) else []
    if evaluator_template == "spec" and any(s.rubric for s in dataset.samples):
        notices.append("--evaluator-template spec: the spec's template has no rubric input, so the samples' "
                       "rubric notes are not sent to the evaluator")
    return notices


def new_run_id(now: datetime | None = None) -> str:
    """A readable, sortable and unique run id: UTC time and 6 random hex digits."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def config_hash(config: CouncilConfig) -> str:
    """SHA-256 (16 hex) of the settings that can change answers."""
    body = config.model_dump_json(exclude={"storage", "logging", "server", "evaluation"})
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
    allow_floating_models: bool = False,
    evaluator_template: str = "council",
    region: str = "unknown",
    reuse_calls: bool = True,
    preset: str | None = None,
    score_candidates: bool = False,
) -> RunManifest:
    """The manifest of a new run (model versions and alias warnings are completed at the end)."""
    models = [model_record(config, m) for m in members]
    warnings = alias_warnings([*models, model_record(config, evaluator)]) + role_warnings(
        config, mode, members, evaluator) + run_notices(repeat, evaluator_template, dataset)
    template_file = TEMPLATES[evaluator_template]
    hashes = {template_file: prompt_hash(template_file)}
    if mode == "council":
        rounds, _below = deliberation_of(config, config.councils.get(preset) if preset is not None else None)
        hashes.update({name: prompt_hash(name) for name in prompts_of(rounds)})
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
        evaluator_template=evaluator_template,
        rubric={"id": rubric.id, "version": rubric.version, "hash": rubric.content_hash()} if mode == "council" else {},
        aggregation_method=config.review.aggregation,
        generation_params=params,
        repeat=repeat,
        concurrency=concurrency,
        sample_timeout_s=sample_timeout_s,
        thresholds=thresholds,
        bootstrap={"n_resamples": N_RESAMPLES, "confidence": CONFIDENCE, "seed": BOOTSTRAP_SEED},
        code_version=code_version(),
        environment={**environment(), "region": region},
        warnings=warnings,
        allow_floating_models=allow_floating_models,
        reuse_calls=reuse_calls,
        preset=preset,
        score_candidates=score_candidates,
    )
