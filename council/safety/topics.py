"""Which harm topics a text mentions: the rule table's topics alone, without intent, framing or operations.

A mention is not harm (news, warnings and history mention these words all
the time): the gate (:mod:`council.safety.gate`) never blocks on a topic
alone. This is what the simulated reviewers "notice" when they are asked
whether an answer gives harmful help (:mod:`council.simulation.personas`):
a model reading an answer that goes along with a harmful request sees
what it is about, whether or not the patterns found operational detail.
Pure and synchronous.
"""

from __future__ import annotations

from council.safety.rules import _RULES


def harm_topics(text: str) -> list[str]:
    """The categories of the harm topics ``text`` mentions, each once, in the rule table's order."""
    lowered = text.lower()
    found: list[str] = []
    for rule in _RULES:
        if rule.category in found or not any(anchor in lowered for anchor in rule.anchors):
            continue
        if any(_whole_words(lowered, match.start(), match.end()) for match in rule.topic.finditer(lowered)):
            found.append(rule.category)
    return found


def _whole_words(text: str, start: int, end: int) -> bool:
    # Some topics are short words the gate only counts beside intent or operations ("ied"): alone, a mention
    # must be a word of its own, not the inside of "quantified".
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() and text[start].isalnum()) and not (after.isalnum() and text[end - 1].isalnum())
