"""The council run: :class:`Council` and the stages it runs, in order.

Answers (:mod:`.answer`), the safety gate (:mod:`.safety_stage`), peer review
(:mod:`.review_stage`), the ranking (:mod:`.rank`, arithmetic in
:mod:`council.ranking`), rubric verdicts with the automatic criteria
(:mod:`.verdicts`) and the final answer (:mod:`.synthesize`), each a function
from a :class:`~council.pipeline.context.RunContext` and plain records to
plain records; :mod:`.judge` judges one given answer. Stages know no screen, no HTTP server
and no command line: they report progress as events.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.pipeline.judge import judge_answer
from council.pipeline.orchestrator import Council

__all__ = ["Council", "judge_answer"]
