"""Reviewer weights learned by ``council calibrate``, kept beside the reviewers' calibration history.

One row per reviewer key (``member|provider|model``, the key of
``reviewer_stats``): the weight, the tally it was computed from (samples,
right ballots, what chance would have scored) and the evaluation runs
behind it. A member whose model changes has a new key, so it finds no row:
learned weights reset with the model, as the calibration history does.
Calibrating again replaces a reviewer's row; weights are not summed across
calibrations, so the runs named are all the evidence there is.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from council.ranking.reviewer_weights import AccuracyTally
from council.storage.database import Row, Session
from council.storage.run_writes import placeholders
from council.storage.tables import Tables


@dataclass(frozen=True)
class StoredWeight:
    """A reviewer's learned weight and where it came from."""

    weight: float
    tally: AccuracyTally
    eval_runs: tuple[str, ...]
    updated_at: str = ""


def _rows(rows: list[Row]) -> dict[str, StoredWeight]:
    found = {}
    for key, weight, samples, correct, chance, runs, updated in rows:
        try:
            names = tuple(str(r) for r in json.loads(runs))
        except (TypeError, ValueError):
            names = ()  # the weight stands without its provenance; the record says "unknown runs"
        found[str(key)] = StoredWeight(float(weight), AccuracyTally(int(samples), float(correct), float(chance)),
                                       names, str(updated))
    return found


def _read(session: Session, keys: list[str]) -> dict[str, StoredWeight]:
    if not keys:
        return {}
    marks = ",".join("?" for _ in keys)
    return _rows(session.fetchall(f"SELECT reviewer_key, weight, samples, correct, chance, eval_runs, updated_at "
                                  f"FROM reviewer_weights WHERE reviewer_key IN ({marks})", keys))


def _read_many(session: Session, key_lists: list[list[str]]) -> list[dict[str, StoredWeight]]:
    everything = _read(session, sorted({key for keys in key_lists for key in keys}))
    return [{key: everything[key] for key in keys if key in everything} for keys in key_lists]


class LearnedWeightTables(Tables):
    """The ``reviewer_weights`` table."""

    def save_learned_weights(self, weights: Mapping[str, StoredWeight]) -> None:
        """Write (or replace) the learned weight of each reviewer key, in one transaction."""
        if not weights:
            return
        now = datetime.now(UTC).isoformat()
        values = [value for key, w in sorted(weights.items()) for value in (
            key, float(w.weight), int(w.tally.samples), float(w.tally.correct), float(w.tally.chance),
            json.dumps(list(w.eval_runs)), now)]
        self._guard("saving learned reviewer weights", lambda: self.db.execute(
            f"INSERT INTO reviewer_weights VALUES {placeholders(len(weights), 7)} ON CONFLICT (reviewer_key) "
            "DO UPDATE SET weight = excluded.weight, samples = excluded.samples, correct = excluded.correct, "
            "chance = excluded.chance, eval_runs = excluded.eval_runs, updated_at = excluded.updated_at", values))

    def learned_weights(self, keys: list[str]) -> dict[str, StoredWeight]:
        """The learned weights of these reviewer keys (keys without one are absent)."""
        return self._guard("reading learned reviewer weights", lambda: self.db.run(lambda s: _read(s, keys)))

    def read_learned_weights(self, keys: list[str]) -> asyncio.Future[dict[str, StoredWeight]]:
        """:meth:`learned_weights`, queued to the group-commit writer (from an event loop, which awaits it)."""
        return self._queue("reading learned reviewer weights", list(keys), combine=_read_many)
