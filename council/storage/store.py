"""Runs, written stage by stage; reviewer calibration history; the rubric registry (:mod:`.rubric_registry`).

A run is inserted when it starts and gets one compressed row per stage
(:mod:`.run_records`), so an interrupted run keeps what it had. Reviewer
statistics (the running mean, spread and reliability of each reviewer's
scores) live here too, keyed by member name, provider and model, so
calibration improves across runs, restarts and replicas; changing a
member's model starts its history afresh. The same code runs on SQLite
and PostgreSQL (:mod:`.database`).
"""

from __future__ import annotations

import asyncio
import os
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pydantic import ValidationError

from council.errors import StorageError
from council.ranking.aggregation import fold_increment
from council.ranking.sheet import HistoryIncrement, ReviewerHistory
from council.result import CouncilResult
from council.rubrics.target_evaluation import TargetEvaluation
from council.storage.database import Row, Session
from council.storage.group_commit import Ahead
from council.storage.learned_weights import LearnedWeightTables, StoredWeight
from council.storage.rubric_registry import RubricRegistryTables
from council.storage.run_records import Stage, merge_payloads
from council.storage.run_writes import HOST, StageWrite, placeholders, prepare_stage
from council.storage.schema import SCHEMA_VERSION, pack_sums, schema_version, unpack_sums

__all__ = ["SCHEMA_VERSION", "RunSummary", "StageWrite", "Store", "StoredWeight", "prepare_stage"]

STALE_RUN_AFTER = timedelta(hours=1)


def _owner_is_gone(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != HOST or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # alive, under another user
    return False


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
    cost_usd: float | None = None
    cost_partial: bool = False


class Store(RubricRegistryTables, LearnedWeightTables):
    """Runs, calibration and rubrics in a SQLite file (``":memory:"`` for a private one) or a PostgreSQL URL."""

    what = "the run database"

    # -- runs -------------------------------------------------------------------
    def save_stage(self, result: CouncilResult, stage: Stage) -> None:
        """Write what ``stage`` added to the run (the whole result when it starts), with its summary row."""
        self.write_stage(prepare_stage(result, stage))

    def write_stage(self, write: StageWrite) -> None:
        """Write a stage prepared by :func:`prepare_stage`, now, on this thread."""
        self._guard("saving a run", lambda: self.db.transaction(write.apply))

    def queue_stage(self, write: StageWrite, *, soon: bool = True) -> asyncio.Future[None]:
        """Queue a stage prepared by :func:`prepare_stage` to the group-commit writer (from an event loop).

        A run's stages are committed in the order queued; the future says
        when this one is on record, or raises :class:`StorageError`. While
        the database is unavailable the write waits in the background
        backlog, and so does its future (:mod:`.backlog`). With
        ``soon=False`` the write may wait a few milliseconds to go with others.
        """
        return self._queue("saving a run", write, combine=StageWrite.apply_many, soon=soon, durable=True,
                           group=write.run_id)

    def save(self, result: CouncilResult) -> None:
        """Store a whole run at once (an import, a test), over what was stored of it before."""
        self.save_stage(result, "started")

    def mark_interrupted(self, reason: str, *, stale_after: timedelta = STALE_RUN_AFTER) -> list[str]:
        """Record as interrupted the runs left running by a process that is gone; their ids.

        A server calls this at start-up. With replicas sharing a database, a
        run still running may belong to another live replica: only runs of a
        dead process on this host, runs from before owners were recorded,
        and runs nobody has written for ``stale_after`` are marked.
        """
        stale = (datetime.now(UTC) - stale_after).isoformat()
        rows = self._guard("finding unfinished runs", lambda: self.db.fetchall(
            "SELECT run_id, owner, updated_at FROM runs WHERE status = 'running'"))
        marked = []
        for run_id, owner, updated_at in rows:
            if not (owner is None or updated_at < stale or _owner_is_gone(owner)):
                continue
            try:
                result = self.get(run_id)
            except StorageError:
                continue  # unreadable: left as it is for `council show` to report
            if result is None:
                continue
            result.status = "interrupted"
            result.degrade(reason)
            self.save_stage(result, "finished")
            marked.append(run_id)
        return marked

    def get(self, run_id: str) -> CouncilResult | None:
        """The stored run, or None."""
        rows = self._guard("reading a run", lambda: self.db.fetchall(
            "SELECT payload FROM run_stages WHERE run_id = ? ORDER BY seq", (run_id,)))
        if not rows:
            return None
        try:
            return CouncilResult.model_validate(merge_payloads(bytes(row[0]) for row in rows))
        except (ValidationError, ValueError, zlib.error) as exc:
            count = exc.error_count() if isinstance(exc, ValidationError) else 1
            raise StorageError(f"run {run_id} in {self.path} is unreadable: {count} problems") from None

    def run_statuses(self, run_ids: list[str]) -> dict[str, str]:
        """The stored status of each of these runs (absent ones are left out), in one query."""
        if not run_ids:
            return {}
        marks = ",".join("?" for _ in run_ids)
        rows = self._guard("reading run statuses", lambda: self.db.fetchall(
            f"SELECT run_id, status FROM runs WHERE run_id IN ({marks})", run_ids))
        return {str(r[0]): str(r[1]) for r in rows}

    def list_runs(self, limit: int = 20, since: datetime | None = None) -> list[RunSummary]:
        """The newest runs first (those created since ``since``, when given)."""
        after = (since or datetime.min.replace(tzinfo=UTC)).isoformat()
        rows = self._guard("listing runs", lambda: self.db.fetchall(
            "SELECT run_id, created_at, status, question, top_member, degraded, simulated, cost_usd, cost_partial "
            "FROM runs WHERE created_at >= ? ORDER BY created_at DESC LIMIT ?", (after, limit)))
        return [RunSummary(r[0], r[1], r[2], r[3], r[4], bool(r[5]), bool(r[6]), r[7], bool(r[8])) for r in rows]

    def cost_since(self, since: datetime) -> tuple[float, int, int]:
        """(USD of the runs created since ``since`` whose cost is known, runs, runs whose cost is partial or unknown).

        A run still running, or stored by a release before costs, counts as unknown.
        """
        row = self._guard("summing run costs", lambda: self.db.fetchone(
            "SELECT COALESCE(SUM(cost_usd), 0), COUNT(*), "
            "SUM(CASE WHEN cost_usd IS NULL OR cost_partial = 1 THEN 1 ELSE 0 END) FROM runs WHERE created_at >= ?",
            (since.isoformat(),)))
        return (float(row[0]), int(row[1]), int(row[2] or 0)) if row else (0.0, 0, 0)

    def prune_runs(self, older_than: timedelta) -> int:
        """Delete finished runs created more than ``older_than`` ago; calibration history is kept. Returns how many."""
        cutoff = (datetime.now(UTC) - older_than).isoformat()
        old = "SELECT run_id FROM runs WHERE created_at < ? AND status != 'running'"

        def work(session: Session) -> int:
            session.execute(f"DELETE FROM run_stages WHERE run_id IN ({old})", (cutoff,))
            return session.execute("DELETE FROM runs WHERE created_at < ? AND status != 'running'", (cutoff,))

        return self._guard("pruning runs", lambda: self.db.transaction(work))

    # -- the database as a whole ---------------------------------------------------
    def table_counts(self) -> dict[str, int]:
        """Rows per table in the database (runs, rubrics, calibration, evaluations, conversations...)."""
        def count() -> dict[str, int]:
            return {name: int((self.db.fetchone(f'SELECT COUNT(*) FROM "{name}"') or (0,))[0])
                    for name in self.db.table_names()}

        return self._guard("counting rows", count)

    def schema_version(self) -> int:
        """The schema version the database is at."""
        return self._guard("reading the schema version", lambda: schema_version(self.db))

    def integrity_check(self) -> str | None:
        """The backend's consistency check (SQLite's ``PRAGMA integrity_check``); None where there is none."""
        return self._guard("checking the database", self.db.integrity_check)

    def save_target_evaluation(self, evaluation: TargetEvaluation, review_id: str | None = None) -> None:
        """Keep a structured target's evaluation, under its target id (and the review it was part of)."""
        self._guard("saving an evaluation", lambda: self.db.execute(
            "INSERT INTO target_evaluations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evaluation_id) DO UPDATE "
            "SET target_id = excluded.target_id, rubric_id = excluded.rubric_id, "
            "rubric_version = excluded.rubric_version, passed = excluded.passed, "
            "weighted_score = excluded.weighted_score, review_id = excluded.review_id, "
            "evaluated_at = excluded.evaluated_at, evaluation_json = excluded.evaluation_json",
            (evaluation.id, evaluation.target_id, evaluation.rubric_id, evaluation.rubric_version,
             int(evaluation.passed), evaluation.weighted_score, review_id, evaluation.evaluated_at.isoformat(),
             evaluation.model_dump_json())))

    def target_evaluations(self, target_id: str) -> list[TargetEvaluation]:
        """Every stored evaluation of ``target_id``, oldest first."""
        rows = self._guard("reading evaluations", lambda: self.db.fetchall(
            "SELECT evaluation_json FROM target_evaluations WHERE target_id = ? ORDER BY evaluated_at", (target_id,)))
        return [TargetEvaluation.model_validate_json(row[0]) for row in rows]

    # -- reviewer calibration ------------------------------------------------------
    def reviewer_history(self, keys: list[str]) -> dict[str, ReviewerHistory]:
        """Stored calibration statistics for these reviewer keys (missing ones are absent)."""
        if not keys:
            return {}
        return self._guard("reading reviewer statistics", lambda: self.db.run(lambda s: _read_history(s, keys)))

    def update_reviewer_history(self, keys: list[str], update: HistoryUpdate) -> dict[str, ReviewerHistory]:
        """Read, update and write reviewer statistics in one transaction, so concurrent runs never lose one.

        Returns the statistics as they were before ``update`` (what a run is
        calibrated with). The rows are locked while ``update`` runs (the
        whole database in SQLite, the reviewers' rows in PostgreSQL):
        writers on other replicas wait for this one and then fold their
        update into its result.
        """
        fold = _HistoryFold(keys, update)
        return self._guard("updating reviewer statistics",
                           lambda: self.db.transaction(lambda session: _fold_histories(session, [fold])[0]))

    def read_reviewer_history(self, keys: list[str], *,
                              ahead: bool = False) -> Awaitable[dict[str, ReviewerHistory]]:
        """:meth:`reviewer_history`, queued to the group-commit writer (from an event loop, which awaits it).

        ``ahead=True`` reads ahead of need: the read rides along with the
        next batch of writes (at most :data:`~council.storage.group_commit.WRITE_BEHIND_S`
        later) rather than waking the writer for itself, and is handed over
        at once if awaited before that.
        """
        future = self._queue("reading reviewer statistics", keys, combine=_read_histories, soon=not ahead)
        return Ahead(self.db.committer, future) if ahead else future

    def add_to_reviewer_history(self, increments: Mapping[str, HistoryIncrement]) -> asyncio.Future[None]:
        """Fold one run's increments into the stored statistics, queued behind the run (from an event loop).

        The fold is plain arithmetic on whatever is stored when the write
        lands, under the rows' locks: runs on any number of replicas lose no
        update. While the database is unavailable the update waits in the
        background backlog and lands when it is back; the future raises
        :class:`StorageError` if it failed for good.
        """
        def update(current: dict[str, ReviewerHistory]) -> dict[str, ReviewerHistory]:
            return {key: fold_increment(current.get(key), increment) for key, increment in increments.items()}

        return self._queue("updating reviewer statistics", _HistoryFold(list(increments), update),
                           combine=_fold_many, soon=False, locks_rows=True, durable=True)


_NO_SUMS = pack_sums(())
HistoryUpdate = Callable[[dict[str, ReviewerHistory]], Mapping[str, ReviewerHistory]]


@dataclass(frozen=True)
class _HistoryFold:
    """One run's calibration update: the reviewers it touches and how it changes their statistics."""

    keys: list[str]
    update: HistoryUpdate


def _read_histories(session: Session, key_lists: list[list[str]]) -> list[dict[str, ReviewerHistory]]:
    """Several runs' reads of reviewer statistics, in one query."""
    everything = _read_history(session, sorted({key for keys in key_lists for key in keys}))
    return [{key: everything[key] for key in keys if key in everything} for keys in key_lists]


def _fold_many(session: Session, folds: list[_HistoryFold]) -> list[None]:
    _fold_histories(session, folds)
    return [None] * len(folds)


def _fold_histories(session: Session, folds: list[_HistoryFold]) -> list[dict[str, ReviewerHistory]]:
    """Apply calibration updates in order, as if each had its own transaction; what each one read.

    All of them read their rows in one statement and write them in another.
    """
    ordered = sorted({key for fold in folds for key in fold.keys})  # one lock order: no deadlocks between replicas
    now = datetime.now(UTC).isoformat()
    # One statement makes a row for a reviewer seen for the first time (count 0 reads as no history), locks
    # every row (PostgreSQL's ON CONFLICT DO UPDATE does) and returns them as they stand.
    rows = session.fetchall(
        "INSERT INTO reviewer_stats VALUES " + ", ".join(["(?, 0, 0, 0, 0, 0, ?, ?)"] * len(ordered)) + " "
        "ON CONFLICT (reviewer_key) DO UPDATE SET updated_at = reviewer_stats.updated_at "
        "RETURNING reviewer_key, count, mean, m2, resid_count, resid_m2, bias",
        [value for key in ordered for value in (key, now, _NO_SUMS)])
    state = _history_rows(rows)
    changed: dict[str, ReviewerHistory] = {}
    read = []
    for fold in folds:
        current = {key: state[key] for key in fold.keys if key in state}
        read.append(current)
        updated = fold.update(dict(current))
        state.update(updated)
        changed.update(updated)
    if changed:
        session.execute(
            f"INSERT INTO reviewer_stats VALUES {placeholders(len(changed), 8)} ON CONFLICT (reviewer_key) "
            "DO UPDATE SET count = excluded.count, mean = excluded.mean, m2 = excluded.m2, "
            "resid_count = excluded.resid_count, resid_m2 = excluded.resid_m2, updated_at = excluded.updated_at, "
            "bias = excluded.bias",
            [value for key, h in sorted(changed.items()) for value in (
                key, h.count, float(h.mean), float(h.m2), h.resid_count, float(h.resid_m2), now,
                pack_sums(h.bias))])
    return read


def _history_rows(rows: list[Row]) -> dict[str, ReviewerHistory]:
    return {r[0]: ReviewerHistory(r[1], r[2], r[3], r[4], r[5], unpack_sums(r[6])) for r in rows if r[1] > 0}


def _read_history(session: Session, keys: list[str]) -> dict[str, ReviewerHistory]:
    if not keys:
        return {}
    marks = ",".join("?" for _ in keys)
    return _history_rows(session.fetchall(f"SELECT reviewer_key, count, mean, m2, resid_count, resid_m2, bias "
                                          f"FROM reviewer_stats WHERE reviewer_key IN ({marks})", keys))
