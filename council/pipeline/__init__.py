"""The council run: :class:`Council` and the stages it runs, in order.

Answers (:mod:`.answer`), the safety gate (:mod:`.safety_gate`), peer review
(:mod:`.review`), automatic rubric scores (:mod:`.rubric_scores`) and the
final answer (:mod:`.synthesize`), each a small async function from a
:class:`~council.pipeline.context.RunContext` to its records; ranking is
delegated to :mod:`council.ranking`. Stages know no screen, no HTTP server
and no command line: they report progress as events.
"""

from council.pipeline.judge import judge_answer
from council.pipeline.orchestrator import Council

__all__ = ["Council", "judge_answer"]
