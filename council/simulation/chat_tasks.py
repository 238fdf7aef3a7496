"""What a simulated member writes for a chat app's side task: the shape the app parses.

A chat app pointed at the simulated council asks for a title, tags and
follow-up suggestions: Open WebUI as JSON objects, LibreChat for a title as
the reply's bare text. Answering them in prose would leave the app's chat
list untitled; this writes the shape it asks for, from the words of the
user's question. Deterministic, offline.
"""

from __future__ import annotations

import json

from council.side_tasks import SideTaskKind, last_user_line
from council.simulation.personas import topic_of
from council.types import ChatMessage


def write_side_task(kind: SideTaskKind, task_text: str) -> str:
    """The JSON reply to a side task of ``kind`` whose prompt is ``task_text``."""
    question = last_user_line(task_text)
    topic = topic_of([ChatMessage(role="user", content=question)]) if question else "the question"
    if kind == "title":
        return json.dumps({"title": topic.capitalize()[:60]})
    if kind == "title_text":
        # LibreChat keeps the whole reply as the title and asks for at most five words in title case.
        return " ".join(word.capitalize() for word in topic.split()[:5])
    if kind == "tags":
        return json.dumps({"tags": ["General"]})
    if kind == "follow_ups":
        return json.dumps({"follow_ups": [f"Can you give an example of {topic}?",
                                          f"What are the limits of {topic}?",
                                          f"How could I check {topic} myself?"]})
    if kind == "queries":
        return json.dumps({"queries": [topic]})
    return json.dumps({"text": topic})
