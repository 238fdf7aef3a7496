"""Evaluation runs: a dataset through the council (or each member), scored, gated and recorded.

``council eval DATASET.jsonl`` is the front end (:mod:`council.cli.eval_command`).
Public: the names imported here (``__all__``): read a dataset
(:func:`load_dataset`), describe the run (:func:`build_manifest`,
:func:`new_run_id`), open its records (:class:`EvalStore`) and run it
(:class:`EvalRunner`). The modules behind them are internal and may change:

- :mod:`council.evals.dataset`: reading and validating JSONL datasets;
- :mod:`council.review.evaluation`: the evaluator template, rendered and read back;
- :mod:`council.evals.evaluator`: asking the evaluator, parsing its strict-JSON
  verdict, retrying once;
- :mod:`council.evals.metrics`: per-sample metrics, run aggregates, the gate;
- :mod:`council.evals.leaderboard`: two-pass batch calibration and the
  leaderboard with bootstrap confidence intervals;
- :mod:`council.evals.runner`: running the samples concurrently, with resume;
- :mod:`council.evals.records`: the SQLite tables and the run records;
- :mod:`council.evals.report`: the terminal summary and the HTML or Markdown report.
"""

from council.evals.dataset import Dataset, DatasetError, Sample, load_dataset
from council.evals.manifest import build_manifest, new_run_id
from council.evals.records import EvalStorageError, EvalStore, EvalSummary, RunManifest
from council.evals.runner import EvalRunner

__all__ = ["Dataset", "DatasetError", "EvalRunner", "EvalStorageError", "EvalStore", "EvalSummary", "RunManifest",
           "Sample", "build_manifest", "load_dataset", "new_run_id"]
