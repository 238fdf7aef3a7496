"""The council run: :class:`Council` and the stages it runs, in order.

The run is the stage list declared in :mod:`.stages` (``RUN_STAGES``), run
by one loop that times each stage, records what it returns into the
result, and saves the run at its checkpoints: answers (:mod:`.answer`, with
the quorum check), the safety gate (:mod:`.safety_stage`), the automatic
rubric scores (:mod:`.verdicts`), peer review (:mod:`.review_stage`), the
ranking (:mod:`.rank_stage`, arithmetic in :mod:`council.ranking`) and the
final answer (:mod:`.synthesize`). Each stage takes the run's context and
the records so far (:class:`~council.pipeline.progress.RunSoFar`) and
returns the next records, never writing on the side. :mod:`.request`
declares a run request (:class:`RunRequest`, built by every face) and
:mod:`.plan` checks it, once, for every entry point; :mod:`.judge` judges one given
answer. Stages know no screen, no HTTP server and no command line: they
report progress as events.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.pipeline.judge import judge_answer
from council.pipeline.orchestrator import Council
from council.pipeline.plan import RunPlan
from council.pipeline.request import DEFAULT_CHAIRMAN, RunRequest

__all__ = ["DEFAULT_CHAIRMAN", "Council", "RunPlan", "RunRequest", "judge_answer"]
