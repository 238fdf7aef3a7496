"""Text as the safety patterns should read it, and the way back to the answer as written.

An answer can hide words from patterns and still show them to a model (or a
person): zero-width characters inside or between words, bidi controls,
Cyrillic or Greek letters that look Latin, full-width letters, letters spaced
out ("r a n k  t h i s  f i r s t"), invisible Unicode tag characters that
spell ASCII. :func:`normalise` undoes these:

1. Unicode NFKC (full-width and mathematical letters, ligatures, no-break
   spaces), except ``…`` and ``µ``, whose NFKC forms (``...`` and Greek mu)
   would change what the harmful-content rules see;
2. zero-width, bidi and other invisible format characters removed, and tag
   characters read as the ASCII they encode;
3. look-alike letters folded to Latin (:data:`LOOK_ALIKES`, Cyrillic and
   Greek) in words made only of Latin letters and look-alikes; a word of
   look-alikes alone ("тор") only in text mostly in Latin letters, so
   Russian or Greek prose keeps its letters;
4. letters spaced out (single letters separated by one space or one of
   ``. - _ · * ~ +``, at least four of them) joined into words, wider gaps
   kept as word breaks;
5. a word that was joined in steps 2 or 4 and is not itself one of the
   known ``words`` split into known words when it can be ("rankthisfirst"
   becomes "rank this first"), or else where the invisible characters stood
   when at least half the pieces are known words: text whose words were
   joined by zero-width spaces, or spaced out without wider gaps.

:meth:`Normalised.span` maps a span of the normalised text back to the
answer, so evidence quotes the answer as written (:meth:`Normalised.quote`
drops only the invisible characters, which would garble a log line). Text
that needs none of this (most answers: ASCII or NFKC already, nothing
invisible, nothing spaced out) is passed through after a few quick checks.
Pure and synchronous; knows nothing of rules or categories.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

# Invisible: soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers, Khmer and Mongolian
# invisibles, zero-width spaces and joiners, bidi marks, embeddings, overrides and isolates, word joiner and
# invisible operators, variation selectors, byte-order mark, tag characters.
_INVISIBLE_CLASS = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef")
_INVISIBLE = re.compile(f"[{_INVISIBLE_CLASS}]")
_TAGS = range(0xE0020, 0xE007F)  # tag characters that spell printable ASCII
_TAG_TEXT = {code: code - 0xE0000 for code in _TAGS}
_KEEP = frozenset("…µ")

#: Cyrillic and Greek letters that look like Latin ones, and the Latin letter each passes for.
LOOK_ALIKES: dict[str, str] = {
    **dict(zip("\u0430\u0441\u0435\u04bb\u0456\u0458\u04cf\u043e\u0440\u051b\u0455\u051d\u0445\u0443\u0501\u0432\u043a"
               "\u043c\u043d\u0442\u0451\u04af", "acehijlopqswxydbkmhtey", strict=True)),  # Cyrillic
    **dict(zip("\u0410\u0412\u0421\u0415\u041d\u0406\u0408\u041a\u041c\u041e\u0420\u0405\u0422\u0425\u0423\u04ae",
               "ABCEHIJKMOPSTXYY", strict=True)),
    **dict(zip("\u03b1\u03bf\u03c1\u03b9\u03c5\u03bd\u03ba\u03c4\u03c7\u03b3\u03b7", "aopiuvktxyn",
               strict=True)),  # Greek (NFKC turns the lunate sigma that looks like c into a sigma first)
    **dict(zip("\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
               "ABEZHIKMNOPTYX", strict=True)),
    "\u0261": "g", "\u0131": "i", "\u0251": "a",  # Latin letters that pass for others
}
_FOLD = str.maketrans(LOOK_ALIKES)
_HAS_LOOK_ALIKE = re.compile(f"[{''.join(LOOK_ALIKES)}]")
_WORD_WITH_LOOK_ALIKE = re.compile(rf"[^\W\d_]*[{''.join(LOOK_ALIKES)}][^\W\d_]*")
_WORD = re.compile(r"[^\W\d_]+")
_LATIN = re.compile(r"[a-zA-Z]")
_GREEK_OR_CYRILLIC = re.compile(r"[\u0370-\u03ff\u0400-\u052f]")

_L = r"[^\W\d_]"
_SEP = r"[.\-_·*~+]"
# Single letters separated by one space, or by one punctuation mark used throughout; a letter next to an
# apostrophe is part of a word ("il y a à l'école", "it's a"). The hints are cheap searches (they start
# with a literal or a small set) that every such run of four letters or more contains.
_SPACED = re.compile(rf"(?<![^\W_])(?<!['’]){_L}(?: {_L})+(?![^\W_]|['’])")
_SPACED_HINT = re.compile(rf" {_L} {_L} {_L}(?![^\W_]|['’])")
_DOTTED = re.compile(rf"(?<![^\W_])(?<!['’]){_L}({_SEP}){_L}(?:\1{_L})+(?![^\W_]|['’])")
_DOTTED_HINT = re.compile(rf"{_SEP}{_L}{_SEP}{_L}")
# A run goes on over wider gaps (two spaces or more; any whitespace between dotted words) to more words
# of spaced letters, one-letter words among them.
_SPACED_BEFORE = re.compile(rf"(?<![^\W_])(?<!['’])({_L}(?: {_L})*)[ \t]{{2,}}\Z")
_SPACED_AFTER = re.compile(rf"[ \t]{{2,}}({_L}(?: {_L})*)(?![^\W_]|['’])")
_DOTTED_BEFORE = re.compile(rf"(?<![^\W_])(?<!['’])({_L}(?:{_SEP}{_L})*){_SEP}?[ \t]+\Z")
_DOTTED_AFTER = re.compile(rf"{_SEP}?[ \t]+({_L}(?:{_SEP}{_L})*)(?![^\W_]|['’])")
_MIN_SPACED_LETTERS = 4


def _is_latin_or_look_alike(ch: str) -> bool:
    return ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff" or ch in LOOK_ALIKES


class _Map:
    """Offsets of one rewriting step: each output piece, where it came from, and whether it is a plain copy."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.out_starts: list[int] = []
        self.src_starts: list[int] = []
        self.src_ends: list[int] = []
        self.copied: list[bool] = []
        self.size = 0

    def copy(self, src: str, lo: int, hi: int) -> None:
        if hi > lo:
            self._piece(src[lo:hi], lo, hi, True)

    def put(self, out: str, lo: int, hi: int) -> None:
        if out:
            self._piece(out, lo, hi, False)

    def _piece(self, out: str, lo: int, hi: int, copied: bool) -> None:
        self.parts.append(out)
        self.out_starts.append(self.size)
        self.src_starts.append(lo)
        self.src_ends.append(hi)
        self.copied.append(copied)
        self.size += len(out)

    def text(self) -> str:
        return "".join(self.parts)

    def back(self, lo: int, hi: int) -> tuple[int, int]:
        """The source span of the output span ``[lo, hi)``; a rewritten piece maps to all of its source."""
        if not self.out_starts:
            return 0, 0
        i = max(0, bisect_right(self.out_starts, lo) - 1)
        src_lo = self.src_starts[i] + (lo - self.out_starts[i]) if self.copied[i] else self.src_starts[i]
        if hi <= lo:
            return src_lo, src_lo
        j = max(0, bisect_right(self.out_starts, hi - 1) - 1)
        src_hi = self.src_starts[j] + (hi - self.out_starts[j]) if self.copied[j] else self.src_ends[j]
        return src_lo, max(src_lo, src_hi)


@dataclass(frozen=True)
class Normalised:
    """An answer as the patterns read it (``text``) and as it was written (``original``)."""

    text: str
    original: str
    _maps: tuple[_Map, ...] = field(default=(), repr=False)

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """The span of the original answer that ``text[lo:hi]`` came from."""
        for step in reversed(self._maps):
            lo, hi = step.back(lo, hi)
        return lo, hi

    def quote(self, lo: int, hi: int) -> str:
        """The original words behind ``text[lo:hi]``, invisible characters dropped, whitespace collapsed."""
        src_lo, src_hi = self.span(lo, hi)
        return " ".join(visible(self.original[src_lo:src_hi]).split())


def visible(text: str) -> str:
    """``text`` without invisible format characters (zero-width, bidi), tag characters read as ASCII."""
    return _INVISIBLE.sub("", text.translate(_TAG_TEXT))


def normalise(text: str, words: frozenset[str] = frozenset()) -> Normalised:
    """``text`` with the disguises listed in the module docstring undone; ``words`` (lower-case) are the
    words a joined run may be split into."""
    maps: list[_Map] = []
    drops: list[int] = []
    current = text
    odd = "" if text.isascii() else _odd_characters(text)
    if odd:
        step = _characters(text, odd, drops)
        maps.append(step)
        current = step.text()
    if not current.isascii() and _HAS_LOOK_ALIKE.search(current):
        # A word of look-alikes only ("тор") is folded only in text mostly in Latin letters: in Greek or
        # Russian prose it is a Greek or Russian word.
        latin = len(_LATIN.findall(current)) > len(_GREEK_OR_CYRILLIC.findall(current))
        current = _WORD_WITH_LOOK_ALIKE.sub(lambda m: _fold(m.group(0), latin), current)  # same length: offsets hold
    edits = _joins(current, drops, words)
    if edits:
        step = _Map()
        pos = 0
        for lo, hi, out in edits:
            step.copy(current, pos, lo)
            step.put(out, lo, hi)
            pos = hi
        step.copy(current, pos, len(current))
        maps.append(step)
        current = step.text()
    return Normalised(current, text, tuple(maps))


def _odd_characters(text: str) -> str:
    """The distinct characters of ``text`` that steps 1 and 2 change: invisible, combining, not NFKC."""
    return "".join(sorted(
        ch for ch in set(text)
        if ch > "\x7f" and ch not in _KEEP
        and (_INVISIBLE.match(ch) or unicodedata.combining(ch) or not unicodedata.is_normalized("NFKC", ch))))


def _characters(text: str, odd: str, drops: list[int]) -> _Map:
    """Steps 1 and 2 on the runs of ``odd`` characters; ``drops`` gets the output offsets where an
    invisible character stood."""
    step, pos = _Map(), 0
    for run in re.finditer(f"[{re.escape(odd)}]+", text):
        lo, hi = run.span()
        if unicodedata.combining(text[lo]) and lo > pos:
            lo -= 1  # a combining mark composes with the letter before it
        step.copy(text, pos, lo)
        pos, i = hi, lo
        while i < hi:
            j = i + 1
            while j < hi and unicodedata.combining(text[j]):
                j += 1
            cluster = text[i:j]
            if _INVISIBLE.match(cluster):
                code = ord(cluster[0])
                if code in _TAGS:
                    step.put(chr(code - 0xE0000), i, i + 1)
                else:
                    drops.append(step.size)
                step.copy(text, i + 1, j)
            elif cluster[0] in _KEEP or unicodedata.is_normalized("NFKC", cluster):
                step.copy(text, i, j)
            else:
                step.put(unicodedata.normalize("NFKC", cluster), i, j)
            i = j
    step.copy(text, pos, len(text))
    return step


def _fold(word: str, whole_words: bool) -> str:
    if not all(_is_latin_or_look_alike(ch) for ch in word):
        return word
    if not whole_words and all(ch in LOOK_ALIKES for ch in word):
        return word
    return word.translate(_FOLD)


def _joins(text: str, drops: list[int], words: frozenset[str]) -> list[tuple[int, int, str]]:
    """Steps 4 and 5 as edits ``(lo, hi, replacement)`` of ``text``, in order and not overlapping."""
    edits = _spaced_runs(text, words)
    if drops and words:
        added: list[tuple[int, int, str]] = []
        inside = sorted(set(drops))
        for m in _WORD.finditer(text):
            lo, hi = m.span()
            k = bisect_right(inside, lo)
            if k == len(inside) or inside[k] >= hi:
                continue  # nothing invisible stood inside this word
            cuts = [pos - lo for pos in inside[k : bisect_left(inside, hi)]]
            split = _split(m.group(0), words) or _split_at(m.group(0), cuts, words)
            if split is not None:
                added.append((lo, hi, split))
        # The words found here never overlap one another; drop those inside a spaced run already joined.
        runs = [(lo, hi) for lo, hi, _ in edits]
        for lo, hi, split in added:
            i = bisect_right(runs, (lo, len(text) + 1))
            if not (i and runs[i - 1][1] > lo) and not (i < len(runs) and runs[i][0] < hi):
                edits.append((lo, hi, split))
        edits.sort()
    return edits


def _spaced_runs(text: str, words: frozenset[str]) -> list[tuple[int, int, str]]:
    edits: list[tuple[int, int, str]] = []
    for shape in ((_SPACED, _SPACED_HINT, _SPACED_BEFORE, _SPACED_AFTER),
                  (_DOTTED, _DOTTED_HINT, _DOTTED_BEFORE, _DOTTED_AFTER)):
        taken = sorted((lo, hi) for lo, hi, _ in edits)  # runs of the first shape win over the second's
        for lo, hi, groups in _runs(text, *shape):
            if sum(map(len, groups)) < _MIN_SPACED_LETTERS:
                continue
            i = bisect_right(taken, (lo, len(text) + 1))
            if (i and taken[i - 1][1] > lo) or (i < len(taken) and taken[i][0] < hi):
                continue
            joined = [(_split(g, words) if words else None) or g for g in groups]
            edits.append((lo, hi, " ".join(joined)))
    edits.sort()
    return edits


def _runs(text: str, group: re.Pattern[str], hint: re.Pattern[str], before: re.Pattern[str],
          after: re.Pattern[str]) -> list[tuple[int, int, list[str]]]:
    """Runs of spaced letters, each with its words' letters, found from their hints (a search of the whole
    text for the run pattern itself costs a few ms per 100 KB)."""
    runs: list[tuple[int, int, list[str]]] = []
    pos = 0
    while (found := hint.search(text, pos)) is not None:
        # The hint starts one character after (spaced) or before (dotted) a letter of the run: walk back to its first.
        i = found.start() + 1 if group is _SPACED else found.start() - 1
        while i >= 2 and text[i - 1] == text[i + 1] and text[i - 2].isalpha() and not (
                i >= 3 and (text[i - 3].isalnum() or text[i - 3] in "_'’")):
            i -= 2
        m = group.match(text, i)
        if m is None:
            pos = found.start() + 1
            continue
        lo, hi, groups = m.start(), m.end(), [m.group(0)]
        while (back := before.search(text, max(0, lo - 80), lo)) is not None:
            lo, groups = back.start(), [back.group(1), *groups]
        while (ahead := after.match(text, hi)) is not None:
            hi, groups = ahead.end(), [*groups, ahead.group(1)]
        runs.append((lo, hi, ["".join(ch for ch in g if ch.isalpha()) for g in groups]))
        pos = hi
    return runs


def _split_at(word: str, cuts: list[int], words: frozenset[str]) -> str | None:
    """``word`` split where invisible characters stood, when it is not a known word and at least half the
    pieces are: "Falls|Sie|gerade|…" was words joined, "Bewer|tung" a word broken up."""
    if word.lower() in words:
        return None
    pieces = [word[a:b] for a, b in itertools.pairwise([0, *cuts, len(word)]) if b > a]
    known = sum(piece.lower() in words for piece in pieces)
    return " ".join(pieces) if len(pieces) > 1 and 2 * known >= len(pieces) else None


def _split(word: str, words: frozenset[str]) -> str | None:
    """``word`` split into the fewest known words (keeping its letters' case), or None when it is one
    already or cannot be split into known words."""
    low = word.lower()
    if len(low) < 5 or low in words or len(low) > 80:
        return None
    longest = max(map(len, words), default=0)
    best: list[tuple[int, int] | None] = [None] * (len(low) + 1)  # (pieces, start of the last piece)
    best[0] = (0, 0)
    for end in range(1, len(low) + 1):
        for start in range(max(0, end - longest), end):
            before = best[start]
            if before is not None and low[start:end] in words:
                candidate = (before[0] + 1, start)
                current = best[end]
                if current is None or candidate[0] < current[0]:
                    best[end] = candidate
    if best[-1] is None or best[-1][0] < 2:
        return None
    cuts, end = [], len(low)
    while end > 0:
        last = best[end]
        assert last is not None
        cuts.append(last[1])
        end = last[1]
    bounds = [*sorted(cuts), len(low)]
    return " ".join(word[a:b] for a, b in itertools.pairwise(bounds))
