"""Run storage in SQLite: every run, written stage by stage, and reviewer calibration history.

A run is inserted when it starts and rewritten after each stage, so an
interrupted run keeps what it had. Reviewer statistics (the running mean,
spread and reliability of each reviewer's scores) live here too, keyed by
member name, provider and model, so calibration improves across runs and
restarts; changing a member's model starts its history afresh.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pydantic import ValidationError

from council.errors import StorageError
from council.ranking.sheet import ReviewerHistory
from council.result import CouncilResult
from council.rubrics.model import Rubric
from council.rubrics.target_evaluation import TargetEvaluation
from council.storage.sqlite import SQLiteTables

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    status      TEXT NOT NULL,
    question    TEXT NOT NULL,
    top_member  TEXT,
    degraded    INTEGER NOT NULL,
    simulated   INTEGER NOT NULL,
    result_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at DESC);
CREATE TABLE IF NOT EXISTS target_evaluations (
    evaluation_id   TEXT PRIMARY KEY,
    target_id       TEXT NOT NULL,
    rubric_id       TEXT NOT NULL,
    rubric_version  TEXT NOT NULL,
    passed          INTEGER NOT NULL,
    weighted_score  REAL NOT NULL,
    review_id       TEXT,
    evaluated_at    TEXT NOT NULL,
    evaluation_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS target_evaluations_target ON target_evaluations (target_id, evaluated_at);
CREATE TABLE IF NOT EXISTS rubrics (
    rubric_id    TEXT NOT NULL,
    version      TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    deleted_at   TEXT,
    PRIMARY KEY (rubric_id, version)
);
CREATE TABLE IF NOT EXISTS reviewer_stats (
    reviewer_key TEXT PRIMARY KEY,
    count        INTEGER NOT NULL,
    mean         REAL NOT NULL,
    m2           REAL NOT NULL,
    resid_count  INTEGER NOT NULL,
    resid_m2     REAL NOT NULL,
    updated_at   TEXT NOT NULL,
    bias         TEXT NOT NULL DEFAULT '[]'
);
"""


def _version_key(version: str) -> tuple[int, ...]:
    core = version.split("-")[0].split("+")[0]
    return tuple(int(part) if part.isdigit() else 0 for part in core.split("."))




@dataclass(frozen=True)
class RunSummary:
    """One line of ``council runs``."""

    run_id: str
    created_at: str
    status: str
    question: str
    top_member: str | None
    degraded: bool
    simulated: bool


class Store(SQLiteTables):
    """A SQLite database of runs. ``":memory:"`` gives a private in-memory one."""

    schema = _SCHEMA
    error = StorageError
    what = "the run database"

    def _prepare(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StorageError(f"{self.path}: database schema {version} is newer than this Council ({SCHEMA_VERSION})")
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def save(self, result: CouncilResult) -> None:
        """Insert or replace a run (called after every stage)."""
        first_user = next((m.content for m in reversed(result.question) if m.role == "user"), "")
        row = (
            result.run_id,
            result.created_at.isoformat(),
            datetime.now(UTC).isoformat(),
            result.status,
            first_user[:500],
            result.final_answer.by if result.final_answer else (result.ranking[0].member if result.ranking else None),
            int(result.degraded),
            int(result.simulated),
            result.model_dump_json(),
        )
        self._guard("saving a run", lambda: self._db.execute(
            "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row))

    def mark_interrupted(self, reason: str) -> list[str]:
        """Record every run still marked running as interrupted (a server found them at start-up); their ids."""
        rows = self._guard("finding unfinished runs", lambda: self._db.execute(
            "SELECT run_id, result_json FROM runs WHERE status = 'running'").fetchall())
        marked = []
        for run_id, payload in rows:
            try:
                result = CouncilResult.model_validate_json(payload)
            except ValidationError:
                continue  # unreadable: left as it is for `council show` to report
            result.status = "interrupted"
            result.degrade(reason)
            self.save(result)
            marked.append(run_id)
        return marked

    def table_counts(self) -> dict[str, int]:
        """Rows per table in the database file (runs, rubrics, calibration, evaluations, conversations...)."""
        def count() -> dict[str, int]:
            names = [row[0] for row in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
            return {name: self._db.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name in names}

        return self._guard("counting rows", count)

    def schema_version(self) -> int:
        """The schema version written in the file (``PRAGMA user_version``)."""
        return int(self._guard("reading the schema version",
                               lambda: self._db.execute("PRAGMA user_version").fetchone()[0]))

    def prune_runs(self, older_than: timedelta) -> int:
        """Delete finished runs created more than ``older_than`` ago; calibration history is kept. Returns how many."""
        cutoff = (datetime.now(UTC) - older_than).isoformat()
        cursor = self._guard("pruning runs", lambda: self._db.execute(
            "DELETE FROM runs WHERE created_at < ? AND status != 'running'", (cutoff,)))
        return cursor.rowcount

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``ok`` or the problems found."""
        rows = self._guard("checking the database", lambda: self._db.execute("PRAGMA integrity_check").fetchall())
        return "; ".join(str(r[0]) for r in rows)

    def get(self, run_id: str) -> CouncilResult | None:
        """The stored run, or None."""
        row = self._guard("reading a run", lambda: self._db.execute(
            "SELECT result_json FROM runs WHERE run_id = ?", (run_id,)).fetchone())
        if row is None:
            return None
        try:
            return CouncilResult.model_validate_json(row[0])
        except ValidationError as exc:
            raise StorageError(f"run {run_id} in {self.path} is unreadable: {exc.error_count()} problems") from None

    def list_runs(self, limit: int = 20) -> list[RunSummary]:
        """The newest runs first."""
        rows = self._guard("listing runs", lambda: self._db.execute(
            "SELECT run_id, created_at, status, question, top_member, degraded, simulated FROM runs "
            "ORDER BY created_at DESC LIMIT ?", (limit,)).fetchall())
        return [RunSummary(r[0], r[1], r[2], r[3], r[4], bool(r[5]), bool(r[6])) for r in rows]

    # -- rubric registry ------------------------------------------------------
    def register_rubric(self, rubric: Rubric) -> bool:
        """Keep ``rubric`` under its id and version; False if that version is already registered as is.

        Raises :class:`StorageError` when the same id and version is registered
        with different content: a changed rubric needs a new version.
        """
        existing = self._guard("reading the rubric registry", lambda: self._db.execute(
            "SELECT content_hash FROM rubrics WHERE rubric_id = ? AND version = ?",
            (rubric.id, rubric.version)).fetchone())
        digest = rubric.content_hash()
        if existing is not None:
            if existing[0] != digest:
                raise StorageError(f"rubric {rubric.ref} is already registered with different content; "
                                   "bump its version")
            return False
        row = (rubric.id, rubric.version, digest, rubric.model_dump_json(by_alias=True), datetime.now(UTC).isoformat())
        self._guard("registering a rubric", lambda: self._db.execute(
            "INSERT INTO rubrics VALUES (?, ?, ?, ?, ?, NULL)", row))
        return True

    def get_rubric(self, reference: str, *, include_deleted: bool = False) -> Rubric | None:
        """``id`` (the latest version not deleted) or ``id@version`` (deleted ones too, for audit)."""
        rubric_id, _, version = reference.partition("@")
        if version:
            rows = self._guard("reading the rubric registry", lambda: self._db.execute(
                "SELECT content_json, version, deleted_at FROM rubrics WHERE rubric_id = ? AND version = ?",
                (rubric_id, version)).fetchall())
        else:
            rows = self._guard("reading the rubric registry", lambda: self._db.execute(
                "SELECT content_json, version, deleted_at FROM rubrics WHERE rubric_id = ?"
                + ("" if include_deleted else " AND deleted_at IS NULL"), (rubric_id,)).fetchall())
        if not rows:
            return None
        newest = max(rows, key=lambda r: _version_key(r[1]))
        return Rubric.model_validate_json(newest[0])

    def list_rubrics(self, include_deleted: bool = False) -> list[tuple[str, str, str, bool]]:
        """(id, version, created_at, deleted) for every registered rubric version."""
        rows = self._guard("listing rubrics", lambda: self._db.execute(
            "SELECT rubric_id, version, created_at, deleted_at FROM rubrics").fetchall())
        listed = [(r[0], r[1], r[2], r[3] is not None) for r in rows]
        return sorted((r for r in listed if include_deleted or not r[3]), key=lambda r: (r[0], _version_key(r[1])))

    def delete_rubric(self, reference: str) -> int:
        """Mark ``id`` (every version) or ``id@version`` deleted; rows are kept for audit. Returns how many."""
        rubric_id, _, version = reference.partition("@")
        now = datetime.now(UTC).isoformat()
        query = "UPDATE rubrics SET deleted_at = ? WHERE rubric_id = ? AND deleted_at IS NULL"
        args: tuple[str, ...] = (now, rubric_id)
        if version:
            query += " AND version = ?"
            args += (version,)
        cursor = self._guard("deleting a rubric", lambda: self._db.execute(query, args))
        return cursor.rowcount

    def rubrics_for_target(self, target_type: str) -> list[Rubric]:
        """The latest registered version of every rubric (not deleted) that judges ``target_type``."""
        latest = [self.get_rubric(rubric_id) for rubric_id in sorted({r[0] for r in self.list_rubrics()})]
        return [rubric for rubric in latest if rubric is not None and rubric.target_type == target_type]

    def update_rubric(self, rubric: Rubric) -> None:
        """Register a new version of a registered rubric; its version must be newer than the latest one."""
        current = self.get_rubric(rubric.id)
        if current is None:
            raise StorageError(f"rubric {rubric.id!r} is not registered; register it first")
        if _version_key(rubric.version) <= _version_key(current.version):
            raise StorageError(f"rubric {rubric.ref}: an update needs a version newer than {current.version}")
        self.register_rubric(rubric)

    def save_target_evaluation(self, evaluation: TargetEvaluation, review_id: str | None = None) -> None:
        """Keep a structured target's evaluation, under its target id (and the review it was part of)."""
        self._guard("saving an evaluation", lambda: self._db.execute(
            "INSERT OR REPLACE INTO target_evaluations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (evaluation.id, evaluation.target_id, evaluation.rubric_id, evaluation.rubric_version,
             int(evaluation.passed), evaluation.weighted_score, review_id, evaluation.evaluated_at.isoformat(),
             evaluation.model_dump_json())))

    def target_evaluations(self, target_id: str) -> list[TargetEvaluation]:
        """Every stored evaluation of ``target_id``, oldest first."""
        rows = self._guard("reading evaluations", lambda: self._db.execute(
            "SELECT evaluation_json FROM target_evaluations WHERE target_id = ? ORDER BY evaluated_at",
            (target_id,)).fetchall())
        return [TargetEvaluation.model_validate_json(row[0]) for row in rows]

    def reviewer_history(self, keys: list[str]) -> dict[str, ReviewerHistory]:
        """Stored calibration statistics for these reviewer keys (missing ones are absent)."""
        if not keys:
            return {}
        marks = ",".join("?" for _ in keys)
        rows = self._guard("reading reviewer statistics", lambda: self._db.execute(
            f"SELECT reviewer_key, count, mean, m2, resid_count, resid_m2, bias FROM reviewer_stats "
            f"WHERE reviewer_key IN ({marks})", keys).fetchall())
        return {r[0]: ReviewerHistory(r[1], r[2], r[3], r[4], r[5], tuple(json.loads(r[6]) or ()))
                for r in rows}

    def update_reviewer_history(
        self, keys: list[str], update: Callable[[dict[str, ReviewerHistory]], Mapping[str, ReviewerHistory]]
    ) -> None:
        """Read, update and write reviewer statistics in one transaction, so concurrent runs never lose one."""

        def work() -> None:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                updated = update(self.reviewer_history(keys))
                now = datetime.now(UTC).isoformat()
                self._db.executemany(
                    "INSERT OR REPLACE INTO reviewer_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(key, s.count, s.mean, s.m2, s.resid_count, s.resid_m2, now, json.dumps(list(s.bias)))
                     for key, s in updated.items()],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

        self._guard("updating reviewer statistics", work)
