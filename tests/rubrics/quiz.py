"""A dataknobs-style scoring function for the quiz fixture: it gets the target dict and returns a level id."""

from __future__ import annotations

from typing import Any


def count_questions(target: dict[str, Any]) -> str:
    """``pass`` with five questions or more, else ``fail``."""
    return "pass" if len(target.get("questions", [])) >= 5 else "fail"
