"""Where in an answer a rule can match: near the words every one of its matches holds.

The judge-aimed rules (:mod:`council.safety.manipulation`) open with dozens of
words in four languages; run over a long answer from end to end they would
cost more than the rest of the gate. But each of their matches holds, or
stands right after, a *key*: a word the answer names itself by ("answer",
"respuesta"), the judges' or the members' nouns, instruction words, system
labels. :class:`KeyIndex` finds every key of every kind in one pass (a
pattern shaped as a trie of the keys, so a word that opens no key is passed
over after a letter or two), and :func:`windows` turns the keys of a rule's
kind into the short stretches where a match of it may start. What a match
asks for is then looked for in a short window after it (:class:`Lookups`),
with one full pass instead once the windows add up to more than the answer.

Keys are starts of words, lower-case (a space in a key stands for any
whitespace); a key marked ``*`` (German compounds: ``*antwort`` in
"Siegerantwort") or with no letters (``<|``) counts anywhere.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

_FULL_SCAN_AFTER = 3000  # characters searched beyond the answer's length before one full pass is cheaper


class Keys:
    """The keys of each kind, compiled: one pattern for keys that open words, one for keys found anywhere."""

    def __init__(self, keys: dict[str, tuple[str, ...]]) -> None:
        self.kinds = tuple(keys)
        kinds_of: dict[str, set[str]] = defaultdict(set)
        for kind, kind_keys in keys.items():
            for key in kind_keys:
                kinds_of[" ".join(key.removeprefix("*").split())].add(kind)
        # A key's kinds, and those of every shorter key it starts with (found at the same place).
        self.kinds_of = {key: tuple(sorted(set().union(*(kinds_of.get(key[:n], ()) for n in range(1, len(key) + 1)))))
                         for key in kinds_of}
        opening = [key for kind_keys in keys.values() for key in kind_keys if key[0].isalpha()]
        inside = [key.removeprefix("*") for kind_keys in keys.values() for key in kind_keys if not key[0].isalpha()]
        # Lookaheads, so keys overlapping one another ("the model", "model") are each found where they start.
        self.patterns = tuple(re.compile(prefix + f"(?=({_trie(sorted(set(group)))}))")
                              for prefix, group in ((r"\b", opening), ("", inside)) if group)


class KeyIndex:
    """Where the keys of each kind stand in one (lower-cased) answer."""

    def __init__(self, low: str, keys: Keys) -> None:
        self.hits: dict[str, list[int]] = {kind: [] for kind in keys.kinds}
        for pattern in keys.patterns:
            for m in pattern.finditer(low):
                found = m.group(1)  # the longest key here: every shorter key found here is a start of it
                kinds = keys.kinds_of.get(found) or keys.kinds_of[" ".join(found.split())]
                for kind in kinds:
                    self.hits[kind].append(m.start())
        if len(keys.patterns) > 1:
            for kind in keys.kinds:
                self.hits[kind].sort()


def _trie(keys: list[str]) -> str:
    """An alternation matching the longest of ``keys`` at a place, shaped as a trie of them."""
    if "" in keys and len(keys) == 1:
        return ""
    branches: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        if key:
            branches[key[0]].append(key[1:])
    alternatives = [(r"\s+" if first == " " else re.escape(first)) + _trie(rests) for first, rests in
                    sorted(branches.items())]
    body = "|".join(alternatives)
    if "" in keys:  # a key ends here, and longer ones go on: try them first
        return f"(?:{body})?"
    return body if len(alternatives) == 1 else f"(?:{body})"


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


class Lookups:
    """Searches of short windows of one answer, kept linear however many windows are searched.

    Each search looks at one window (after an address, for what it asks). Once the windows searched for a
    pattern add up to more than the answer, every place the pattern matches is found in one pass (its greedy
    match at each place) and later windows are answered from that list.
    """

    def __init__(self, low: str) -> None:
        self.low = low
        self.spent: dict[int, int] = {}
        self.index: dict[int, tuple[list[int], list[int]]] = {}

    def end(self, pattern: re.Pattern[str], lo: int, hi: int) -> int | None:
        """Where the first match of ``pattern`` in ``[lo, hi)`` ends, None when there is none."""
        key = id(pattern)
        index = self.index.get(key)
        if index is None:
            spent = self.spent[key] = self.spent.get(key, 0) + hi - lo
            if spent <= len(self.low) + _FULL_SCAN_AFTER:
                m = pattern.search(self.low, lo, hi)
                return m.end() if m else None
            whole = re.compile(f"(?=({pattern.pattern}))", pattern.flags)
            found = [(m.start(), m.end(1)) for m in whole.finditer(self.low)]
            index = self.index[key] = ([start for start, _ in found], [end for _, end in found])
        starts, ends = index
        i = bisect.bisect_left(starts, lo)
        while i < len(starts) and starts[i] < hi:
            if ends[i] <= hi:
                return ends[i]
            i += 1
        return None
