"""Regex machinery of the safety gate: patterns rewritten so sre can skip ahead on a literal.

Every safety pattern runs on the lower-cased answer and is made through
:func:`_rx`, which rewrites it into an equivalent form that starts with a
literal character where it can (see :func:`_literal_first`). That is what
keeps a 100 KB answer fast. The rewritten forms are several times longer
and slow to compile, so each is compiled the first time it is used
(:class:`SafetyPattern`). ``_COMPILED`` keeps every (source, pattern) pair
so a test can check that the rewrite never changes what matches.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
from collections.abc import Iterator


def _structure(pattern: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """Each structural character from ``start`` with its group depth after it: ``(``, ``)`` and ``|``.

    Escapes and character classes are skipped, so a ``(`` or ``|`` inside them is not structure.
    """
    depth, i, in_class = 0, start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c in "()|":
            depth += {"(": 1, ")": -1, "|": 0}[c]
            yield i, c, depth
        i += 1


def _group_end(pattern: str, start: int) -> int:
    # Index just past the group opening at ``start``.
    for i, c, depth in _structure(pattern, start):
        if c == ")" and depth == 0:
            return i + 1
    raise ValueError(f"unbalanced group in {pattern!r}")


def _alternatives(body: str) -> list[str]:
    # Split a group body at its top-level "|".
    cuts = [i for i, c, depth in _structure(body) if c == "|" and depth == 0]
    bounds = [-1, *cuts, len(body)]
    return [body[lo + 1 : hi] for lo, hi in itertools.pairwise(bounds)]


_LEADING_B = re.compile(r"(^|\||\(\?:)\\b([a-z0-9]|\\d)(?![?*+{])")  # a quantified first token stays as it is
_QUANTIFIER = ("?", "*", "+", "{")


def _flatten(pattern: str) -> str:
    # (?:a|b)rest  ->  a rest|b rest, for alternatives that open with an unquantified group.
    out = []
    for alt in _alternatives(pattern):
        if alt.startswith("(?:"):
            end = _group_end(alt, 0)
            if not alt[end:].startswith(_QUANTIFIER):
                out.append(_flatten("|".join(inner + alt[end:] for inner in _alternatives(alt[3 : end - 1]))))
                continue
        out.append(alt)
    return "|".join(out)


def _literal_first(pattern: str) -> str:
    """Rewrite a pattern so that every top-level alternative starts with a literal.

    ``\\b(?:a|b)`` becomes ``(?:\\ba|\\bb)``, ``(?:a|b)c`` becomes ``ac|bc`` and
    ``\\bword`` becomes ``w(?<=\\bw)ord``. Each form matches exactly the same text,
    but sre skips ahead through an answer only when every alternative opens with a
    literal character, which is an order of magnitude faster on long answers.
    """
    i = pattern.find("\\b(?:")
    while i >= 0:
        end = _group_end(pattern, i + 2)
        if not pattern[end:].startswith(_QUANTIFIER):  # \b(?:x)? is not (?:\bx)?
            body = "|".join("\\b" + alt for alt in _alternatives(pattern[i + 5 : end - 1]))
            pattern = f"{pattern[:i]}(?:{body}){pattern[end:]}"
        i = pattern.find("\\b(?:", i + 1)
    return _LEADING_B.sub(lambda m: f"{m[1]}{m[2]}(?<=\\b{m[2]})", _flatten(pattern))


class SafetyPattern:
    """A safety pattern, rewritten (:func:`_literal_first`) and compiled the first time it is used.

    Compiling every rule's pattern at import took 0.3-0.4 s of each start-up,
    mostly for rules whose literal anchors an ordinary answer never contains.
    Once compiled, ``search`` and ``finditer`` are the compiled pattern's own
    methods, with nothing in between: the gate calls them hundreds of times
    a question.
    """

    def __init__(self, source: str) -> None:
        self.source = source

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        """The rewritten pattern, compiled (multi-line)."""
        compiled = re.compile(_literal_first(self.source), re.MULTILINE)
        # The instance's own attributes now answer before the class's methods below.
        self.__dict__["search"], self.__dict__["finditer"] = compiled.search, compiled.finditer
        return compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.search`` of the compiled pattern."""
        return self.compiled.search(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer`` of the compiled pattern."""
        return self.compiled.finditer(text, pos, endpos)


_COMPILED: list[tuple[str, SafetyPattern]] = []  # (source, pattern), so a test can check the rewrite


def _rx(pattern: str) -> SafetyPattern:
    # Patterns run on the lower-cased answer: without IGNORECASE, sre can skip ahead on
    # first characters, which is what keeps a 100 KB answer fast. An upper-case letter
    # (other than an escape like \S) would therefore never match, so refuse it early.
    if re.search(r"(?<!\\)[A-Z]", pattern):
        raise ValueError(f"safety patterns must be lower-case: {pattern[:60]!r}")
    safety_pattern = SafetyPattern(pattern)
    _COMPILED.append((pattern, safety_pattern))
    return safety_pattern
