"""The safety gate: pattern checks on every answer before review, each finding with its category and evidence.

:mod:`.gate` runs the checks, :mod:`.rules` is the rule table, :mod:`.regex`
the pattern machinery, :mod:`.normalise` undoes disguises before any of them,
and :mod:`.manipulation` flags text aimed at the judges or the revisers.
Pure and synchronous: knows nothing of councils, providers or storage (an
LLM classifier on top is the pipeline's business).

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.safety.gate import CATEGORIES, SafetyFinding, SafetyVerdict, check_answer
from council.safety.manipulation import find_manipulation
from council.safety.topics import harm_topics

__all__ = ["CATEGORIES", "SafetyFinding", "SafetyVerdict", "check_answer", "find_manipulation", "harm_topics"]
