"""Evaluation runs: a dataset through the council (or each member), scored, gated and recorded.

``council eval DATASET.jsonl`` is the front end (:mod:`council.cli.eval_command`).
Public: the names imported here (``__all__``): read a dataset
(:func:`load_dataset`), describe the run (:func:`build_manifest`,
:func:`new_run_id`, :func:`pinned_config`, :func:`config_hash`,
:func:`run_region`, its gate's :class:`Thresholds`), check what it calls
(:func:`floating_models`, :func:`unpriced_members`), open its records
(:class:`EvalStore`), run it (:class:`EvalRunner`), report it
(:func:`render_summary`, :func:`write_report`, :func:`run_metadata`) and
compare two runs (:func:`compare_runs`, :func:`render_comparison`), and
learn reviewer weights from runs with reference answers (:func:`calibrate_reviewers`,
``council calibrate``). The modules behind them are internal and may change:

- :mod:`council.evals.dataset`: reading and validating JSONL datasets;
- :mod:`council.review.evaluation`: the evaluator template, rendered and read back;
- :mod:`council.evals.evaluator`: asking the evaluator, parsing its strict-JSON
  verdict, retrying once;
- :mod:`council.evals.metrics`: per-sample metrics, run aggregates, the gate;
- :mod:`council.evals.leaderboard`: two-pass batch calibration and the
  leaderboard with bootstrap confidence intervals;
- :mod:`council.evals.runner`: running the samples concurrently, with resume;
- :mod:`council.evals.records`: the SQLite tables and the run records;
- :mod:`council.evals.report`: the terminal summary and the HTML or Markdown report;
- :mod:`council.evals.candidates`: every member's answer scored against the reference (--score-candidates);
- :mod:`council.evals.reviewer_accuracy`: each reviewer's accuracy over such runs, and its learned weight.
"""

from council.evals.compare import compare_runs, render_comparison
from council.evals.dataset import Dataset, DatasetError, Sample, load_dataset
from council.evals.manifest import build_manifest, config_hash, floating_models, new_run_id, pinned_config
from council.evals.metadata import run_metadata, run_region
from council.evals.metrics import Thresholds
from council.evals.records import EvalStorageError, EvalStore, EvalSummary, RunManifest
from council.evals.report import render_summary, write_report
from council.evals.reviewer_accuracy import CalibrationInputError, ReviewerAccuracy, calibrate_reviewers
from council.evals.runner import EvalRunner
from council.evals.spending import unpriced_members

__all__ = ["CalibrationInputError", "Dataset", "DatasetError", "EvalRunner", "EvalStorageError", "EvalStore",
           "EvalSummary", "ReviewerAccuracy", "RunManifest", "Sample", "Thresholds", "build_manifest",
           "calibrate_reviewers", "compare_runs", "config_hash", "floating_models", "load_dataset", "new_run_id",
           "pinned_config", "render_comparison", "render_summary", "run_metadata", "run_region", "unpriced_members",
           "write_report"]
