"""Evaluation records and their SQLite tables.

Every sample's raw output (the answer, the evaluator's replies, the scores,
timings and tokens) is written as soon as it is finished, so an interrupted
run keeps them and ``--resume`` redoes nothing that was done. The tables live
in the same database file as the council's runs (``storage.path``), through
their own connection:

- ``eval_runs``: one row per evaluation run: its manifest (everything needed
  to reproduce it), its status (``running``, ``interrupted``, ``stopped``
  when its ``--max-usd`` budget ran out, ``complete``) and, once finished or
  stopped, its summary;
- ``eval_samples``: one row per (run, repeat, sample, subject), where the
  subject is ``council`` in council mode and the member in judge mode. In
  council mode ``council_run_id`` points at the full council result in the
  ``runs`` table, which the leaderboard's calibration reads back.

Records are JSON documents: fields added later (cost, budget) have defaults,
so records written before them still load (their cost is unknown: None).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from council.errors import StorageError
from council.evals.evaluator import Evaluation
from council.evals.gate import Gate, RepeatStats
from council.evals.metrics import RunMetrics, SampleMetrics, Thresholds
from council.rubrics.score import RubricVerdict
from council.storage.tables import Tables
from council.types import GenerationParams

T = TypeVar("T")
Mode = Literal["council", "judge"]
COUNCIL_SUBJECT = "council"

class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SampleRecord(_Record):
    """One answer to one task, how it was scored, and its verdict under the run's thresholds."""

    run_id: str
    repeat: int
    sample_id: str
    subject: str = Field(description="'council' in council mode, the member in judge mode.")
    question: str = Field(description="The task's last user turn, for tables.")
    status: Literal["ok", "failed", "timed_out"]
    error: str | None = None
    candidate_answer: str | None = None
    answered_by: str | None = Field(default=None, description="Who wrote the candidate answer.")
    council_run_id: str | None = None
    model_versions: dict[str, str] = Field(default_factory=dict, description="Member -> version the provider reported.")
    evaluator: str
    metrics: SampleMetrics
    evaluation: Evaluation
    passed: bool
    failed_conditions: list[str] = Field(default_factory=list)
    sample_score: float
    created_at: datetime
    rubric_verdicts: list[RubricVerdict] = Field(
        default_factory=list, description="The answer judged by the sample's rubrics (AgentV eval files).")
    unpriced: list[str] = Field(default_factory=list,
                                description="Members whose calls for the answer have no known cost (no price).")
    reused_calls: dict[str, int] = Field(default_factory=dict, description="Calls answered from kept replies, per "
                                                                           "kind (call reuse): no upstream call.")
    reused_usd: float = Field(default=0.0, description="What the reused calls cost when they were made: part of "
                                                       "the costs above, not spent again by this run.")
    candidates_valid: dict[str, bool] = Field(default_factory=dict, description="A structured council sample: per "
                                              "member, whether its candidate validated.")
    candidate_evaluations: dict[str, Evaluation] = Field(
        default_factory=dict, exclude_if=lambda verdicts: not verdicts,
        description="council eval --score-candidates, samples with a reference answer: the evaluator's verdict on "
                    "each member's answer, by member (what council calibrate measures the reviewers against).")

    @model_validator(mode="after")
    def _rubric_failures_count(self) -> SampleRecord:
        # Records written before metrics.other_failures existed kept a failed rubric verdict only among
        # failed_conditions, where the summary did not see it: it is carried over so it counts.
        if not self.metrics.other_failures and any(not v.passed for v in self.rubric_verdicts):
            found = [c for c in self.failed_conditions if c.startswith("rubric ")]
            self.metrics = self.metrics.model_copy(update={"other_failures": found})
        return self


class ModelRecord(_Record):
    """A member's model: the configured id and every version its provider reported in the run."""

    member: str
    provider: str
    model: str
    versions: list[str] = Field(default_factory=list)
    floating_alias: bool = False


class RunManifest(_Record):
    """What is needed to explain, repeat or resume an evaluation run."""

    run_id: str
    timestamp_utc: datetime
    mode: Mode
    dataset_id: str
    dataset_hash: str
    dataset_path: str
    n_samples: int
    config_path: str
    config_hash: str
    simulated: bool
    members: list[str]
    models: list[ModelRecord]
    evaluator: ModelRecord
    judge: str | None = None
    prompt_hashes: dict[str, str]
    evaluator_template: str = Field(default="council", description="The evaluator prompt: council (prompts/"
                                                                   "evaluator.md) or spec (prompts/evaluator_spec.md).")
    rubric: dict[str, str] = Field(default_factory=dict)
    aggregation_method: str
    generation_params: GenerationParams
    repeat: int
    concurrency: int
    sample_timeout_s: float
    thresholds: Thresholds
    bootstrap: dict[str, Any] = Field(default_factory=dict)
    code_version: dict[str, Any]
    environment: dict[str, Any]
    warnings: list[str] = Field(default_factory=list)
    allow_floating_models: bool = Field(default=False, description="The run was let use floating model aliases "
                                                                   "(--allow-floating-models).")
    reuse_calls: bool = Field(default=False, description="Kept replies of earlier runs stood in for calls asked the "
                                                         "same way (off with --fresh, and in runs stored before).")
    preset: str | None = Field(default=None, exclude_if=lambda name: name is None,
                               description="The preset every sample ran with (--preset); None: the council as "
                                           "configured.")
    score_candidates: bool = Field(default=False, exclude_if=lambda scored: not scored,
                                   description="Council mode: every member's answer was scored against the "
                                               "reference too (--score-candidates), for council calibrate.")
    reused_calls: dict[str, int] = Field(default_factory=dict, description="Calls answered from kept replies, per "
                                                                           "kind (answer, review, chairman, "
                                                                           "evaluation), completed at the end.")


class Interval(_Record):
    """A mean and its bootstrap confidence interval."""

    mean: float | None
    low: float | None
    high: float | None


class LeaderboardEntry(_Record):
    """One member's place on the leaderboard."""

    member: str
    rank: int
    n_samples: int
    score: Interval
    mean_rank: float | None = None
    win_rate: float | None = None
    dimensions: dict[str, Interval] = Field(default_factory=dict)


class Leaderboard(_Record):
    """Members ranked over the whole dataset, with bootstrap intervals over samples."""

    kind: Literal["council_ranking", "judge_scores"]
    score_label: str
    confidence: float
    n_resamples: int
    entries: list[LeaderboardEntry]
    calibration: dict[str, Any] = Field(default_factory=dict)


class SubjectSummary(_Record):
    """The metrics, repeat statistics and gate of one subject (the council, or one judged member)."""

    subject: str
    metrics: RunMetrics
    repeats: RepeatStats
    gate: Gate
    n_failed: int = Field(default=0, description="Samples (over all repeats) that did not pass.")
    failed_because: dict[str, int] = Field(default_factory=dict,
                                           description="How many samples failed each condition (accuracy, ...).")


class CostSummary(_Record):
    """What a run's answers cost in all (every subject), and apart from it what its evaluator cost, in US dollars.

    A cost that is not known is None, never 0; ``partial`` says some of it is
    unknown (the members in ``unpriced`` have no price), so the figure is a
    lower bound. Per subject (each member in judge mode), the figures are in
    :class:`~council.evals.metrics.RunMetrics`.
    """

    total_usd: float | None = Field(description="Every answer's cost (the evaluator's apart); None: nothing priced.")
    per_sample_usd: float | None = None
    partial: bool = False
    unpriced: list[str] = Field(default_factory=list)
    evaluator_usd: float | None = Field(default=None, description="The evaluator's calls; None: not priced.")
    evaluator_partial: bool = False
    reused_usd: float = Field(default=0.0, description="Of the answers' and the evaluator's cost, what calls reused "
                                                       "from earlier runs cost when made (not spent by this run).")


class BudgetStatus(_Record):
    """The ``--max-usd`` budget of the latest session of a run (a resume starts a new one), and how it went."""

    max_usd: float
    spent_usd: float = Field(description="What this session's samples and their evaluation cost; an unknown cost "
                                         "counts 0.")
    stopped: bool = Field(description="The budget ran out before every sample was run.")
    done: int = Field(description="Samples stored, over every session.")
    total: int = Field(description="Samples the run has in all (samples x repeats x subjects).")
    reason: str | None = Field(default=None, description="Why the run stopped, for people.")


class EvalSummary(_Record):
    """The outcome of an evaluation run."""

    run_id: str
    mode: Mode
    gate_passed: bool
    subjects: dict[str, SubjectSummary]
    leaderboard: Leaderboard | None = None
    evaluator_tokens_total: int = 0
    cost: CostSummary | None = Field(default=None, description="None in runs stored before cost was recorded.")
    budget: BudgetStatus | None = Field(default=None, description="Only when the session ran under --max-usd.")
    warnings: list[str] = Field(default_factory=list)
    member_schema_valid_rate: dict[str, float] = Field(
        default_factory=dict, description="Council mode, samples with an output_schema: each member's share of "
                                          "candidates that validated (the council's own is schema_valid_rate).")


class StoredRun(_Record):
    """An evaluation run as stored: its manifest, status and summary (None until finished)."""

    manifest: RunManifest
    status: str
    summary: EvalSummary | None


class EvalStorageError(StorageError):
    """The evaluation tables could not be read or written."""


class EvalStore(Tables):
    """The evaluation tables of a council database (a path, a PostgreSQL URL, or one already open)."""

    error = EvalStorageError
    what = "the evaluation tables"

    def start_run(self, manifest: RunManifest) -> None:
        """Insert a new run as ``running``."""
        now = datetime.now(UTC).isoformat()
        row = (manifest.run_id, manifest.timestamp_utc.isoformat(), now, "running", manifest.mode,
               manifest.dataset_id, manifest.dataset_hash, manifest.model_dump_json(), None)
        self._guard("starting an evaluation run",
                    lambda: self.db.execute("INSERT INTO eval_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row))

    def update_run(self, run_id: str, *, status: str, manifest: RunManifest | None = None,
                   summary: EvalSummary | None = None) -> None:
        """Set a run's status, and its manifest or summary when given."""
        sets, values = ["status = ?", "updated_at = ?"], [status, datetime.now(UTC).isoformat()]
        if manifest is not None:
            sets.append("manifest_json = ?")
            values.append(manifest.model_dump_json())
        if summary is not None:
            sets.append("summary_json = ?")
            values.append(summary.model_dump_json())
        self._guard("updating an evaluation run", lambda: self.db.execute(
            f"UPDATE eval_runs SET {', '.join(sets)} WHERE run_id = ?", (*values, run_id)))

    def get_run(self, run_id: str) -> StoredRun | None:
        """A stored run, or None."""
        row = self._guard("reading an evaluation run", lambda: self.db.fetchone(
            "SELECT manifest_json, status, summary_json FROM eval_runs WHERE run_id = ?", (run_id,)))
        if row is None:
            return None
        try:
            summary = EvalSummary.model_validate_json(row[2]) if row[2] else None
            return StoredRun(manifest=RunManifest.model_validate_json(row[0]), status=row[1], summary=summary)
        except ValidationError as exc:
            raise EvalStorageError(f"evaluation run {run_id} in {self.path} is unreadable: "
                                   f"{exc.error_count()} problems") from None

    def recent_runs(self, limit: int = 5) -> list[tuple[str, str, str]]:
        """``(run_id, created_at, status)`` of the newest runs."""
        rows = self._guard("listing evaluation runs", lambda: self.db.fetchall(
            "SELECT run_id, created_at, status FROM eval_runs ORDER BY created_at DESC LIMIT ?", (limit,)))
        return [(r[0], r[1], r[2]) for r in rows]

    def save_sample(self, record: SampleRecord) -> None:
        """Write one finished sample (at once, so an interruption keeps it)."""
        row = (record.run_id, record.repeat, record.sample_id, record.subject, record.created_at.isoformat(),
               record.council_run_id, record.model_dump_json())
        self._guard("saving an evaluation sample", lambda: self.db.execute(
            "INSERT INTO eval_samples VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, repeat, sample_id, subject) "
            "DO UPDATE SET created_at = excluded.created_at, council_run_id = excluded.council_run_id, "
            "record_json = excluded.record_json", row))

    def samples(self, run_id: str) -> list[SampleRecord]:
        """Every stored sample of a run, by repeat, then in the order written."""
        rows = self._guard("reading evaluation samples", lambda: self.db.fetchall(
            "SELECT record_json FROM eval_samples WHERE run_id = ? ORDER BY repeat, created_at, sample_id, subject",
            (run_id,)))
        try:
            return [SampleRecord.model_validate_json(r[0]) for r in rows]
        except ValidationError as exc:
            raise EvalStorageError(f"a sample of evaluation run {run_id} is unreadable: "
                                   f"{exc.error_count()} problems") from None

    def done_keys(self, run_id: str) -> set[tuple[int, str, str]]:
        """``(repeat, sample_id, subject)`` of every stored sample of a run."""
        rows = self._guard("reading evaluation samples", lambda: self.db.fetchall(
            "SELECT repeat, sample_id, subject FROM eval_samples WHERE run_id = ?", (run_id,)))
        return {(r[0], r[1], r[2]) for r in rows}
