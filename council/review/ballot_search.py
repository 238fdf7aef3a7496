"""Where a ballot may be in a reviewer's reply: every place worth reading, most trusted first.

:func:`ballot_spots` lists the candidates :func:`council.review.ballot.parse_ballot`
validates in turn, in this fixed order:

1. every ``<verdict nonce="NONCE">`` block carrying this review's nonce, the
   last one first (at most :data:`MAX_TAGS` of them);
2. then every ballot-shaped JSON object in the reply (one with a
   ``"ranking"`` or ``"evaluations"`` key, in a code fence or bare), the
   last one to close first (within :data:`MAX_OBJECTS` brace pairs tried).

Nothing copied from an answer under review is ever offered as a ballot: a
verdict block whose JSON is copied is reported as such (and the parser stops
there), and a copied object is skipped. "Copied" means that the object's text, neutralized and with all
whitespace removed, occurs in one of the answers as the reviewer saw them.
The nonce cannot be copied at all, since no answer contains it.

Each spot is read once, in time linear in its length; brace matching looks
at most at the last :data:`MAX_BRACES` braces of the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from council import strict_json

MAX_TAGS = 32  # verdict blocks tried, last first
MAX_OBJECTS = 32  # brace pairs tried for a bare object, last first
MAX_BRACES = 20_000  # braces matched, counted from the end

_TAG_BEFORE_NONCE = re.compile(r"<\s*verdict\s+nonce\s*=\s*[\"']?$", re.IGNORECASE)
_TAG_AFTER_NONCE = re.compile(r"[\"']?\s*>")
_BEFORE_JSON = re.compile(r"\s*(?:```[A-Za-z]*[ \t]*\r?\n?\s*)?")
_BRACES = re.compile(r"[{}]")


@dataclass(frozen=True)
class Spot:
    """One place a ballot may be: its JSON value when it could be read, else why not.

    ``kind`` is ``"read"`` (``value`` is set, not yet validated),
    ``"unreadable"`` (no JSON object there) or ``"copied"`` (a verdict block
    whose JSON is copied from an answer); ``problem`` says what is wrong.
    """

    kind: Literal["read", "unreadable", "copied"]
    value: Any = None
    problem: str = ""


class _Unreadable(ValueError):
    """The text is not a JSON value; the message says why."""


def _decode(text: str, start: int) -> tuple[Any, int]:
    """The JSON value starting at ``start`` and where it ends; ``_Unreadable`` if there is none."""
    try:
        return strict_json.DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        line = text.count("\n", start, exc.pos) + 1
        column = exc.pos - (text.rfind("\n", start, exc.pos) + 1 if line > 1 else start) + 1
        raise _Unreadable(f"{exc.msg} (line {line}, column {column})") from None
    except RecursionError:
        raise _Unreadable("it is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer too long to convert, a repeated key, a number out of range
        raise _Unreadable(str(exc)) from None


def _verdict_block(text: str, start: int, is_quoted: Callable[[str], bool]) -> Spot:
    """The verdict block whose content begins at ``start``."""
    json_start = _BEFORE_JSON.match(text, start).end()  # type: ignore[union-attr]  # the pattern matches ""
    if not text.startswith("{", json_start):
        return Spot("unreadable", problem="the verdict block does not start with a JSON object")
    try:
        value, stop = _decode(text, json_start)
    except _Unreadable as exc:
        return Spot("unreadable", problem=f"the verdict block is not valid JSON: {exc}")
    if is_quoted(text[json_start:stop]):
        return Spot("copied", problem="the verdict is copied from one of the answers under review")
    return Spot("read", value)


def _verdict_blocks(text: str, nonce: str, is_quoted: Callable[[str], bool]) -> Iterator[Spot]:
    """Every verdict block carrying ``nonce``, last first."""
    end, tried = len(text), 0
    while tried < MAX_TAGS and (index := text.rfind(nonce, 0, end)) >= 0:
        end = index + len(nonce) - 1
        if not _TAG_BEFORE_NONCE.search(text, max(0, index - 40), index):
            continue
        after = _TAG_AFTER_NONCE.match(text, index + len(nonce))
        if after is not None:
            tried += 1
            yield _verdict_block(text, after.end(), is_quoted)


def _tail_start(text: str) -> int:
    """Where the tail of ``text`` holding at most ``MAX_BRACES`` braces begins.

    Counting runs in C, a block at a time, so a reply made of braces costs
    no more than a normal one: the ballot is at the end of a reply anyway.
    """
    start, count = len(text), 0
    while start > 0:
        block = max(0, start - 4096)
        count += text.count("{", block, start) + text.count("}", block, start)
        if count > MAX_BRACES:
            break
        start = block
    return start


def _brace_spans(text: str) -> list[tuple[int, int]]:
    """Matched ``{ ... }`` spans in the tail of ``text``, in the order they close.

    A stack (not a depth counter) so that a stray ``{`` in prose cannot swallow
    the object after it: the later pair still matches.
    """
    stack: list[int] = []
    spans: list[tuple[int, int]] = []
    for match in _BRACES.finditer(text, _tail_start(text)):
        if match.group() == "{":
            stack.append(match.start())
        elif stack:
            spans.append((stack.pop(), match.end()))
    return spans


def _own_objects(text: str, is_quoted: Callable[[str], bool]) -> Iterator[Spot]:
    """Every ballot-shaped JSON object in ``text`` not copied from an answer, the last to close first.

    An object that decodes is read whole: the objects nested in it are not
    offered again.
    """
    bound = len(text)
    attempts = 0
    for start, end in reversed(_brace_spans(text)):
        if end > bound:
            continue  # inside an object already read
        attempts += 1
        if attempts > MAX_OBJECTS:
            return
        try:
            value, stop = _decode(text, start)
        except _Unreadable:
            continue  # not JSON here; an object nested inside may still be
        bound = start
        if isinstance(value, dict) and ("ranking" in value or "evaluations" in value) \
                and not is_quoted(text[start:stop]):
            yield Spot("read", value)


def ballot_spots(text: str, nonce: str | None, is_quoted: Callable[[str], bool]) -> Iterator[Spot]:
    """Every place in ``text`` a ballot may be, in the order of preference of the module docstring.

    ``nonce`` is None when the review's nonce is unusable: then no verdict
    block can be recognized, and only bare objects are offered.
    """
    if nonce is not None:
        yield from _verdict_blocks(text, nonce, is_quoted)
    yield from _own_objects(text, is_quoted)
