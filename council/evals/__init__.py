"""Evaluation runs: a dataset through the council (or each member), scored, gated and recorded.

``council eval DATASET.jsonl`` is the front end (:mod:`council.cli.eval_command`).
The parts, each usable on its own:

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

This package's ``__init__`` imports nothing, so the simulated provider can
read evaluator prompts without pulling in the runner.
"""
