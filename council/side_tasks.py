"""Chat apps' side tasks: telling a title, tags or follow-ups request from a user's question.

Chat apps such as Open WebUI send, beside each question, small requests of
their own to the same model: a title for the chat, tags, suggested
follow-up messages, search queries. They are worth one cheap call, not a
council run. The server routes them (``server.task_model``) and the
simulated members answer them in the JSON shape the app parses.

The rule is kept narrow so a real question is never taken for one: the
last user message opens with ``### Task:`` and quotes the conversation
inside ``<chat_history>`` tags, as Open WebUI's task templates do. This
module reads message text only; it knows nothing of HTTP, config or members.
"""

from __future__ import annotations

import re
from typing import Literal

SideTaskKind = Literal["title", "tags", "follow_ups", "queries", "task"]

# The JSON key the task template asks for names the task; anything else recognised is a plain "task".
_KINDS: dict[str, SideTaskKind] = {"title": "title", "tags": "tags", "follow_ups": "follow_ups", "queries": "queries"}
_OUTPUT_KEY = re.compile(r'\{\s*"(title|tags|follow_ups|queries)"\s*:')
_HISTORY = re.compile(r"<chat_history>(.*?)(?:</chat_history>|\Z)", re.DOTALL)


def side_task_kind(text: str) -> SideTaskKind | None:
    """Which side task ``text`` (the last user message) asks for, or None for an ordinary question."""
    stripped = text.lstrip()
    if not stripped.startswith("### Task:") or "<chat_history>" not in stripped:
        return None
    found = _OUTPUT_KEY.search(stripped)
    return _KINDS[found.group(1)] if found else "task"


def quoted_history(text: str) -> str:
    """The conversation a side task quotes between ``<chat_history>`` tags ('' when there is none)."""
    found = _HISTORY.search(text)
    return found.group(1).strip() if found else ""


def last_user_line(text: str) -> str:
    """The last ``USER:`` line of a quoted chat history, without its label ('' when there is none).

    A title follows the first question; follow-ups follow the latest one.
    """
    lines = [line.removeprefix("USER:").strip() for line in quoted_history(text).splitlines()
             if line.startswith("USER:")]
    return lines[-1] if lines else ""
