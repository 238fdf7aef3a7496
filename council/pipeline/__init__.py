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

The faces (the command line, the HTTP and MCP servers) import from here
only, never a module inside: :class:`Council`, and what it hands out of
what lies below it: the run database (:mod:`.archive`:
:class:`RunArchive`, also opened on its own by commands with no council,
and the web page's conversations) and one member for calls outside a run
(:mod:`.members`).

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.pipeline.archive import (
    SCHEMA_VERSION,
    BacklogFigures,
    CallKind,
    Conversation,
    Conversations,
    DirectCall,
    DirectCallTotals,
    RunArchive,
    RunSummary,
    spend_day,
)
from council.pipeline.cost import cost_summary, usd_of
from council.pipeline.judge import judge_answer, judge_target
from council.pipeline.members import Member, check_member_params, image_url_refusal, upstream_words
from council.pipeline.orchestrator import Council
from council.pipeline.payloads import run_finished_data
from council.pipeline.plan import RunPlan
from council.pipeline.replay import stage_events
from council.pipeline.request import DEFAULT_CHAIRMAN, RunRequest, caller_scope
from council.pipeline.targets import evaluate_target
from council.pipeline.verdicts import AUTOMATIC_REVIEWER

__all__ = ["AUTOMATIC_REVIEWER", "DEFAULT_CHAIRMAN", "SCHEMA_VERSION", "BacklogFigures", "CallKind", "Conversation",
           "Conversations", "Council", "DirectCall", "DirectCallTotals", "Member", "RunArchive", "RunPlan",
           "RunRequest", "RunSummary", "caller_scope", "check_member_params", "cost_summary", "evaluate_target",
           "image_url_refusal", "judge_answer", "judge_target", "run_finished_data", "spend_day", "stage_events",
           "upstream_words", "usd_of"]
