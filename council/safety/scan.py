"""One answer prepared for the safety checks, and the verdict they give.

The scan holds the answer normalised (:mod:`council.safety.normalise`: full-width
and look-alike letters, invisible characters and spaced-out letters undone)
and lower-cased, its sentences and passages, and cached pattern lookups.

Sentences end at ``.!?`` before whitespace and at newlines (at most 400
characters); passages end at blank lines outside code fences (at most 1500).
Evidence is the sentence around a match, quoted from the answer as written (its
invisible characters dropped), digits masked, at most 120 characters.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from pydantic import BaseModel, ConfigDict

from council.safety.normalise import normalise, visible
from council.safety.rules import _Matcher, _Ops
from council.types import Usage

# The categories a pattern finding can carry (an LLM classifier may report others).
CATEGORIES = ("dangerous_instructions", "weapon_making", "malware_hacking", "self_harm", "pii_exposure")


class SafetyFinding(BaseModel):
    """One reason an answer failed the gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str
    rule: str
    evidence: str


class SafetyVerdict(BaseModel):
    """The gate's decision on one answer: failing findings, or notes on what was let through."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    findings: list[SafetyFinding] = []
    notes: list[str] = []
    checker: str = "patterns"
    usage: Usage | None = None  # the LLM classifier's call, when one was made


_MAX_SENTENCE = 400
_BOUNDARY = re.compile(r"[.!?\n](?:(?<=\n)|[\"'”’)\]]{0,3}(?=\s))")
_MAX_PASSAGE = 1500
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_FENCE = re.compile(r"^[^\S\n]*```", re.MULTILINE)
_DIGIT_RUN = re.compile(r"\d(?:[ -]?\d){8,}")


def _mask_run(m: re.Match[str]) -> str:
    # Keep separators and the last four digits so the evidence stays readable.
    s = m.group(0)
    keep = len(s)
    seen = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i].isdigit():
            seen += 1
            if seen == 4:
                keep = i
                break
    return re.sub(r"\d", "*", s[:keep]) + s[keep:]


def _clean(s: str, limit: int = 120) -> str:
    # Pydantic rejects lone surrogates, and arbitrary model output can contain them.
    s = " ".join(s.encode("utf-8", "replace").decode("utf-8").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _lower_same_length(text: str) -> str:
    # Offsets into the lowered text must be offsets into the answer. str.lower() keeps
    # the length unless a character lowers to several (Turkish İ does); then map one by one.
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _split(text: str, breaks: list[int], cap: int) -> list[int]:
    # Start offsets of pieces ending at the given breaks, force-split so none exceeds cap.
    starts = [0]
    for end in breaks:
        while end - starts[-1] > cap:
            starts.append(starts[-1] + cap)
        if end > starts[-1]:
            starts.append(end)
    while len(text) - starts[-1] > cap:
        starts.append(starts[-1] + cap)
    return starts


def _piece(starts: list[int], size: int, pos: int) -> tuple[int, int, int]:
    i = bisect_right(starts, pos) - 1
    return i, starts[i], starts[i + 1] if i + 1 < len(starts) else size


class _Scan:
    """One answer: its normalised, lower-cased text, sentences and passages, and cached pattern lookups.

    Lookups start by searching just the window asked about; once the windows
    searched for a pattern add up to the whole answer, one full scan answers the
    rest by bisection. That keeps the common case (a few topic words) cheap and
    the worst case (an answer full of them) linear.
    """

    def __init__(self, text: str) -> None:
        self.norm = normalise(text)
        self.text = text = self.norm.text
        self.low = _lower_same_length(text)
        self.sentences = _split(text, [m.end() for m in _BOUNDARY.finditer(self.low)], _MAX_SENTENCE)
        # Passages are paragraphs, except that a fenced code block is one passage however many blank lines it has.
        fences = [m.start() for m in _FENCE.finditer(self.low)]
        breaks = [m.end() for m in _PARAGRAPH_BREAK.finditer(self.low) if bisect_left(fences, m.start()) % 2 == 0]
        self.passages = _split(text, breaks, _MAX_PASSAGE)
        # Keyed by id(): patterns and groups are module constants, and hashing a compiled
        # pattern hashes its whole source, which costs more than the lookups it serves.
        self._positions: dict[int, list[int]] = {}
        self._searched: dict[int, int] = {}
        self._passage_hits: dict[tuple[int, int], bool] = {}
        self._satisfied: dict[int, list[int]] = {}

    def sentence(self, pos: int) -> tuple[int, int]:
        """The start and end of the sentence holding ``pos``."""
        _, lo, hi = _piece(self.sentences, len(self.text), pos)
        return lo, hi

    def _positions_of(self, pattern: _Matcher) -> list[int]:
        found = self._positions.get(id(pattern))
        if found is None:
            found = self._positions[id(pattern)] = [m.start() for m in pattern.finditer(self.low)]
        return found

    def has(self, pattern: _Matcher, lo: int, hi: int) -> bool:
        """Whether some match of ``pattern`` starts in ``[lo, hi)``."""
        key = id(pattern)
        if key not in self._positions:
            # A match starting before hi may end after it: 80 characters lets step parts and
            # intents finish; anything longer would run into the next sentence anyway.
            spent = self._searched[key] = self._searched.get(key, 0) + hi - lo + 80
            if spent <= len(self.low):
                m = pattern.search(self.low, lo, min(len(self.low), hi + 80))
                return m is not None and m.start() < hi
        found = self._positions_of(pattern)
        i = bisect_left(found, lo)
        return i < len(found) and found[i] < hi

    def operational(self, groups: _Ops, lo: int, hi: int) -> bool:
        """Whether some passage overlapping ``[lo, hi)`` holds every pattern of some group."""
        first = _piece(self.passages, len(self.text), lo)[0]
        last = _piece(self.passages, len(self.text), max(lo, hi - 1))[0]
        for group in groups:
            if not all(self.has(p, lo, hi) for p in group):
                continue  # the usual case, settled without looking at single passages
            key = id(group)
            satisfied = self._satisfied.get(key)
            if satisfied is None:
                spent = self._searched[key] = self._searched.get(key, 0) + last - first + 1
                if spent <= len(self.passages):
                    if any(self._passage_has(group, i) for i in range(first, last + 1)):
                        return True
                    continue
                satisfied = self._satisfied[key] = self._satisfying_passages(group)
            j = bisect_left(satisfied, first)
            if j < len(satisfied) and satisfied[j] <= last:
                return True
        return False

    def _passage_has(self, group: tuple[_Matcher, ...], i: int) -> bool:
        key = (id(group), i)
        hit = self._passage_hits.get(key)
        if hit is None:
            _, lo, hi = _piece(self.passages, len(self.text), self.passages[i])
            hit = self._passage_hits[key] = all(self.has(p, lo, hi) for p in group)
        return hit

    def _satisfying_passages(self, group: tuple[_Matcher, ...]) -> list[int]:
        common: set[int] | None = None
        for pattern in group:
            indexes = {bisect_right(self.passages, pos) - 1 for pos in self._positions_of(pattern)}
            common = indexes if common is None else common & indexes
        return sorted(common or ())

    def evidence(self, start: int, end: int) -> str:
        """The sentence around a match as the answer wrote it, digits masked, trimmed to 120 characters."""
        s_lo, s_hi = self.sentence(start)
        lo, hi = max(s_lo, start - 40), min(s_hi, max(end, start + 160))
        lo, hi = self.norm.span(lo, hi)
        original = self.norm.original
        # Mask a wider slice so a number cut by the trim is still masked.
        before = visible(original[max(0, lo - 24) : lo])
        quoted = visible(original[lo:hi])
        after = visible(original[hi : hi + 24])
        masked = _DIGIT_RUN.sub(_mask_run, before + quoted + after)[len(before) : len(before) + len(quoted)]
        return _clean(("…" if lo > self.norm.span(s_lo, s_lo)[0] else "") + masked)

    def passage(self, pos: int) -> tuple[int, int]:
        """The start and end of the passage (paragraph or code block) holding ``pos``."""
        _, lo, hi = _piece(self.passages, len(self.text), pos)
        return lo, hi

