"""Each reviewer's accuracy over evaluation runs with reference answers, and the weights learned from it.

What the records hold: a council-mode run made with ``--score-candidates``
keeps, per sample with a ``reference_answer``, the evaluator's accuracy
score (0-2) of every member's answer (``SampleRecord.candidate_evaluations``),
and its ``council_run_id`` points at the stored council result, whose
reviews are the reviewers' ballots (their overall score of each answer).

A reviewer's ballot on a sample counts when the answers it scored got
different accuracy scores; it is right when the answer it scored highest
is one of the most accurate among those it scored (a tie at its top earns
the share of the tied answers that are most accurate). That is
:func:`council.ranking.reviewer_weights.ballot_credit`; the weight formula is
:func:`~council.ranking.reviewer_weights.learned_weight`.

Reviewers are told apart by ``member|provider|model`` as the run's manifest
recorded them, the key under which the council keeps their calibration
history: weights learned for one model are never applied to another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from council.errors import CouncilError
from council.evals.records import EvalStore, StoredRun
from council.ranking.reviewer_weights import AccuracyTally, ballot_credit, learned_weight, wilson_interval
from council.result import CouncilResult
from council.storage.store import Store, StoredWeight


class CalibrationInputError(CouncilError):
    """An evaluation run cannot be calibrated from: missing, in judge mode, or without per-answer verdicts."""


@dataclass
class ReviewerAccuracy:
    """One reviewer's tally over the runs, under its store key."""

    reviewer: str
    key: str
    tally: AccuracyTally = field(default_factory=AccuracyTally)
    runs: list[str] = field(default_factory=list)

    @property
    def weight(self) -> float:
        """The learned weight of this tally."""
        return learned_weight(self.tally)

    @property
    def interval(self) -> tuple[float, float] | None:
        """The accuracy's 95% Wilson interval."""
        return wilson_interval(self.tally)

    def stored(self) -> StoredWeight:
        """What ``council calibrate`` keeps for this reviewer."""
        return StoredWeight(self.weight, self.tally, tuple(self.runs))


def _checked(run: StoredRun | None, run_id: str, store: EvalStore) -> StoredRun:
    if run is None:
        recent = ", ".join(r[0] for r in store.recent_runs()) or "none"
        raise CalibrationInputError(f"no evaluation run {run_id!r} in {store.path} (recent: {recent})")
    if run.manifest.mode != "council":
        raise CalibrationInputError(f"evaluation run {run_id} is a judge-mode run: it has no reviewers' ballots "
                                    "(calibrate from a council-mode run)")
    if not run.manifest.score_candidates:
        raise CalibrationInputError(f"evaluation run {run_id} did not score the members' answers against reference "
                                    "answers: run council eval --score-candidates on a dataset with "
                                    "reference_answer")
    return run


def reviewer_accuracy(evals: EvalStore, runs: Store, run_ids: Sequence[str]) -> list[ReviewerAccuracy]:
    """Each reviewer's tally over the named evaluation runs, sorted by reviewer and key.

    Raises :class:`CalibrationInputError` naming the run when one is missing,
    in judge mode, made without ``--score-candidates``, or has no sample
    that tells a right answer from a wrong one.
    """
    found: dict[str, ReviewerAccuracy] = {}
    for run_id in dict.fromkeys(run_ids):
        run = _checked(evals.get_run(run_id), run_id, evals)
        keys = {m.member: f"{m.member}|{m.provider}|{m.model}" for m in run.manifest.models}
        counted = 0
        for record in evals.samples(run_id):
            marks = {member: e.accuracy_score for member, e in record.candidate_evaluations.items()}
            result = runs.get(record.council_run_id) if marks and record.council_run_id else None
            for name, credit in _ballots(result, marks):
                if name not in keys:
                    continue  # a judge outside the members: the manifest does not say which model it was
                # A reviewer whose ballots never told right from wrong is kept, with no sample: weight 1.
                entry = found.setdefault(keys[name], ReviewerAccuracy(name, keys[name]))
                if run_id not in entry.runs:
                    entry.runs.append(run_id)
                if credit is not None:
                    entry.tally = entry.tally + AccuracyTally(1, *credit)
                    counted += 1
        if not counted:
            raise CalibrationInputError(f"evaluation run {run_id} has no sample whose answers the evaluator told "
                                        "apart against a reference answer (no reference_answer in the dataset, "
                                        "or every answer scored alike): nothing to learn from")
    return sorted(found.values(), key=lambda entry: (entry.reviewer, entry.key))


def _ballots(result: CouncilResult | None,
             marks: dict[str, int | None]) -> list[tuple[str, tuple[float, float] | None]]:
    """Each ballot of the result: its reviewer and its (credit, chance), None when it tells nothing."""
    if result is None:
        return []
    return [(review.reviewer, ballot_credit({member: s.overall for member, s in review.scores.items()}, marks))
            for review in result.reviews if review.status == "ok"]


def calibrate_reviewers(location: str | Path, run_ids: Sequence[str], *, save: bool = True) -> list[ReviewerAccuracy]:
    """``council calibrate``: each reviewer's accuracy over the runs in the database at ``location``, its
    learned weight stored under its key unless ``save`` is False. Raises :class:`CalibrationInputError`
    (see :func:`reviewer_accuracy`), and :class:`~council.errors.StorageError` when the database fails."""
    store = Store(location)
    try:
        rows = reviewer_accuracy(EvalStore(store.db), store, run_ids)
        if save:
            store.save_learned_weights({row.key: row.stored() for row in rows})
    finally:
        store.close()
    return rows
