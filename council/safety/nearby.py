"""Where in an answer a rule can match: near the words every one of its matches holds.

The judge-aimed rules (:mod:`council.safety.manipulation`) open with dozens of
words in four languages; run over a long answer from end to end they would
cost more than the rest of the gate. But each of their matches holds, or
stands right after, a *key*: a word the answer names itself by ("answer",
"respuesta"), the judges' or the members' nouns, instruction words, system
labels. :class:`KeyIndex` finds the keys of each kind (one pass per kind
whose keys start any word of the answer), and :func:`windows` turns them
into the short stretches where a match may start.

Keys are starts of words, lower-case (a space in a key stands for any
whitespace); a key marked ``*`` (German compounds: ``*antwort`` in
"Siegerantwort") or with no letters (``<|``) counts anywhere.
"""

from __future__ import annotations

import re

_NOT_LETTERS = re.compile(r"[\W\d_]+")
_LETTERS = re.compile(r"[^\W\d_]+")


class Keys:
    """The keys of each kind, ready to look for: patterns per kind, and what a word must start with."""

    def __init__(self, keys: dict[str, tuple[str, ...]]) -> None:
        self.kinds = tuple(keys)
        # Keys that open words are looked for only where a word opens; the others ("*antwort", "<|") anywhere.
        self.patterns = {kind: tuple(_pattern(group, opens_word) for opens_word, group in _groups(kind_keys))
                         for kind, kind_keys in keys.items()}
        # " " and the letters a key opens a word with; a key found anywhere, as it is.
        self.starts = {kind: tuple(_start(key) for key in kind_keys) for kind, kind_keys in keys.items()}


def _groups(keys: tuple[str, ...]) -> list[tuple[bool, tuple[str, ...]]]:
    inside = tuple(key.removeprefix("*") for key in keys if key.startswith("*") or not key[0].isalpha())
    words = tuple(key for key in keys if key[0].isalpha())
    return [(opens_word, group) for opens_word, group in ((True, words), (False, inside)) if group]


def _start(key: str) -> tuple[str, bool]:
    letters = _LETTERS.match(key)
    return (" " + letters.group(0), True) if letters else (key.removeprefix("*"), False)


class KeyIndex:
    """Where the keys of each kind stand in one (lower-cased) answer."""

    def __init__(self, low: str, keys: Keys) -> None:
        self.hits: dict[str, list[int]] = {}
        if len(low) <= _SHORT:
            for kind in keys.kinds:
                self.hits[kind] = _found(low, keys.patterns[kind])
            return
        # The distinct words of the answer, each after a space: a key can start a word only if a space and
        # its first letters are in here. One split of the answer, rather than a search of all of it per kind.
        words = " " + _NOT_LETTERS.sub(" ", " ".join(set(low.split())))
        for kind in keys.kinds:
            present = any((start in words) if opens_word else (start in low) for start, opens_word in keys.starts[kind])
            self.hits[kind] = _found(low, keys.patterns[kind]) if present else []


def _found(low: str, patterns: tuple[re.Pattern[str], ...]) -> list[int]:
    hits = [m.start() for pattern in patterns for m in pattern.finditer(low)]
    return sorted(hits) if len(patterns) > 1 else hits


_SHORT = 4000  # a text this short is searched for every kind's keys at once


def _pattern(keys: tuple[str, ...], opens_word: bool) -> re.Pattern[str]:
    # A lookahead, so keys overlapping one another ("the model", "model") are each found where they start.
    ordered = sorted(keys, key=lambda k: (-len(k), k))
    alternatives = "|".join(re.escape(key).replace("\\ ", r"\s+") for key in ordered)
    return re.compile(("\\b" if opens_word else "") + f"(?=(?:{alternatives}))")


def windows(hits: list[int], before: int, after: int, size: int) -> list[tuple[int, int]]:
    """Where a match may start, for matches that start up to ``before`` characters before a key and at most
    ``after`` after it: merged stretches of an answer ``size`` characters long."""
    found: list[tuple[int, int]] = []
    for pos in hits:
        lo, hi = max(0, pos - before), min(size, pos + after + 1)
        if found and lo <= found[-1][1]:
            found[-1] = (found[-1][0], max(hi, found[-1][1]))
        else:
            found.append((lo, hi))
    return found
