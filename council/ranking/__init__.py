"""From reviewers' scores to a ranking: calibrated z-scores, reviewer weights, agreement and bias flags.

Also Bradley-Terry over pairwise preferences (:mod:`council.ranking.bradley_terry`), the
self-preference correction (:mod:`council.ranking.self_preference`), the weighting schemes
(:mod:`council.ranking.weights`), and ranking anyone's ballot files with the same aggregation
(:mod:`council.ranking.ballots`, which reads its JSONL or CSV file itself), and judge weights
learned from labelled items (:mod:`council.ranking.learned_weights`, :mod:`council.ranking.learning_report`).

Synchronous: calibration history comes in as data and goes out as data;
storing it is the caller's job. Knows nothing of providers, prompts or
storage.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.ranking.aggregation import METHODS, aggregate, update_history
from council.ranking.ballot_file import BallotError
from council.ranking.ballots import MODES, BallotReport, ItemRanking, rank_ballots
from council.ranking.learned_weights import PRIOR_LABELS, fit_weights
from council.ranking.learning_report import CurvePoint, JudgeWeight, LearningReport, labels_needed
from council.ranking.sheet import Aggregate, ReviewerHistory, ScoreSheet
from council.ranking.weights import DEFAULT_WEIGHTING, WEIGHTINGS

__all__ = ["DEFAULT_WEIGHTING", "METHODS", "MODES", "PRIOR_LABELS", "WEIGHTINGS", "Aggregate", "BallotError",
           "BallotReport", "CurvePoint", "ItemRanking", "JudgeWeight", "LearningReport", "ReviewerHistory",
           "ScoreSheet", "aggregate", "fit_weights", "labels_needed", "rank_ballots", "update_history"]
