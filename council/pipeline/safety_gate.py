"""The old name of :mod:`council.pipeline.safety_stage`, kept only until ``orchestrator.py`` imports the new one."""

from council.pipeline.safety_stage import apply_safety_gate

__all__ = ["apply_safety_gate"]
