"""The old name of :mod:`council.pipeline.review_stage`, kept only until ``orchestrator.py`` imports the new one."""

from council.pipeline.review_stage import judging_for, mark_oversized, review_answers

__all__ = ["judging_for", "mark_oversized", "review_answers"]
