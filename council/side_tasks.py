"""Chat apps' side tasks: telling a title, tags or follow-ups request from a user's question.

Chat apps such as Open WebUI send, beside each question, small requests of
their own to the same model: a title for the chat, tags, suggested
follow-up messages, search queries. They are worth one cheap call, not a
council run. The server routes them (``server.task_model``) and the
simulated members answer them in the JSON shape the app parses.

The rule is kept narrow so a real question is never taken for one: the
last user message opens with ``### Task:`` and quotes the conversation
inside ``<chat_history>`` tags, as Open WebUI's task templates do; or it
opens with LibreChat's default title prompt and quotes the conversation
after a ``Conversation:`` line as ``User: …`` and ``AI: …``, as LibreChat's
title request does (``titleMethod: completion``, its default). This module
reads message text only; it knows nothing of HTTP, config or members.
"""

from __future__ import annotations

import re
from typing import Literal

# "title_text" is a title asked for as the reply's bare text (LibreChat's), not as a JSON object.
SideTaskKind = Literal["title", "title_text", "tags", "follow_ups", "queries", "task"]

# The JSON key the task template asks for names the task; anything else recognised is a plain "task".
_KINDS: dict[str, SideTaskKind] = {"title": "title", "tags": "tags", "follow_ups": "follow_ups", "queries": "queries"}
_OUTPUT_KEY = re.compile(r'\{\s*"(title|tags|follow_ups|queries)"\s*:')
_HISTORY = re.compile(r"<chat_history>(.*?)(?:</chat_history>|\Z)", re.DOTALL)
# LibreChat's title request: the opening of @librechat/agents' default completion title prompt, then the chat
# in its default template, "User: {input}\nAI: {output}", after a "Conversation:" line.
_LIBRECHAT_TITLE = "Provide a concise, 5-word-or-less title for the conversation"
_LIBRECHAT_CHAT = re.compile(r"\nConversation:\n(User: (.*?)\nAI: .*)\Z", re.DOTALL)


def side_task_kind(text: str) -> SideTaskKind | None:
    """Which side task ``text`` (the last user message) asks for, or None for an ordinary question."""
    stripped = text.lstrip()
    if stripped.startswith(_LIBRECHAT_TITLE) and _LIBRECHAT_CHAT.search(stripped):
        return "title_text"
    if not stripped.startswith("### Task:") or "<chat_history>" not in stripped:
        return None
    found = _OUTPUT_KEY.search(stripped)
    return _KINDS[found.group(1)] if found else "task"


def quoted_history(text: str) -> str:
    """The conversation a side task quotes, between ``<chat_history>`` tags or after LibreChat's ``Conversation:``.

    '' when there is none.
    """
    found = _HISTORY.search(text)
    if found:
        return found.group(1).strip()
    librechat = _LIBRECHAT_CHAT.search(text) if text.lstrip().startswith(_LIBRECHAT_TITLE) else None
    return librechat.group(1).strip() if librechat else ""


def last_user_line(text: str) -> str:
    """The last ``USER:`` line of a quoted chat history, without its label ('' when there is none).

    A title follows the first question; follow-ups follow the latest one.
    LibreChat's title quotes one question (``User: …``), of which this is
    the first line.
    """
    librechat = _LIBRECHAT_CHAT.search(text) if text.lstrip().startswith(_LIBRECHAT_TITLE) else None
    if librechat:
        return next((line.strip() for line in librechat.group(2).splitlines() if line.strip()), "")
    lines = [line.removeprefix("USER:").strip() for line in quoted_history(text).splitlines()
             if line.startswith("USER:")]
    return lines[-1] if lines else ""
