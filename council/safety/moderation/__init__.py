"""The moderation layer: a moderation API's second opinion on answers that pass the pattern checks.

:mod:`.client` calls the configured API on the shared transport (retries,
deadlines, secrets scrubbed); :mod:`.openai_moderations` and
:mod:`.llama_guard` are its two wire formats (OpenAI's moderation endpoint,
Llama Guard over chat completions); :mod:`.outcome` maps their categories
onto Council's and records each check. Configured by ``safety.moderation``;
the safety stage (:mod:`council.pipeline.safety_stage`) decides what a
verdict or a failure means for the run.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.safety.moderation.client import Moderator, moderation_api_key
from council.safety.moderation.outcome import (
    LLAMA_GUARD_CATEGORIES,
    MODERATION_CATEGORIES,
    OPENAI_CATEGORIES,
    Judgement,
    ModerationCheck,
    check_record,
    council_category,
    judged,
)

__all__ = ["LLAMA_GUARD_CATEGORIES", "MODERATION_CATEGORIES", "OPENAI_CATEGORIES", "Judgement", "ModerationCheck",
           "Moderator", "check_record", "council_category", "judged", "moderation_api_key"]
