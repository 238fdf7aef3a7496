"""Untrusted text inside prompts: fencing it in nonce-carrying blocks, and filling templates in one pass.

Every prompt Council sends (review, chairman, evaluator, safety classifier,
feedback) carries text written by others: the user's conversation and the
members' answers. That text goes into blocks whose markers carry a per-call
random nonce that no text contains (:func:`new_nonce`), after
:func:`neutralize` has made every marker-like sequence inert; and templates
are filled by :func:`fill_template` in a single pass, so a ``{answers}`` or
``{nonce}`` written inside a question stays literal text. Nothing else may
build a prompt from a template: :func:`render_prompt` is the one way.
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Iterable, Mapping

from council.assets import load_prompt

_LOOKALIKE = str.maketrans({"<": "\u2039", ">": "\u203a"})  # ‹ and ›
# Runs of two or more angle brackets (our markers), chat-format role tokens
# like <|im_start|>, and verdict tags. Only angle brackets are rewritten, one
# character for one, so adjacency is unchanged: no "<<" can survive. Every
# branch starts at an angle bracket; the leading lookahead says so, which lets
# the engine pass over other characters quickly (about twice as fast).
_MARKER_LIKE = re.compile(r"(?=[<>])(?:[<>]{2,}|<(?=\|)|(?<=\|)>|<(?=/?verdict))", re.IGNORECASE)
# Unicode "tag" characters are invisible yet read by models, a known way to
# hide instructions; they have no place in an answer under review.
_TAG_CHARACTERS = re.compile("[\U000e0000-\U000e007f]")
_NONCE = re.compile(r"^[0-9a-f]{8,64}$")
_KIND = re.compile(r"^[a-z][a-z_]{0,31}$")
_ATTRS = re.compile(r'^(?:[a-z_]+="[^"<>\r\n]*"(?: [a-z_]+="[^"<>\r\n]*")*)?$')
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def neutralize(text: str) -> str:
    """``text`` with every marker-like sequence made inert and hidden tag characters removed.

    Angle brackets in ``<<``, ``>>`` (and longer runs), ``<|``, ``|>`` and
    ``<verdict`` / ``</verdict`` become the look-alikes ‹ and ›. Everything
    else, single ``<`` and ``>`` included, is left as written so code and
    maths in answers stay readable.
    """
    # The same answers are neutralized for every reviewer's prompt and ballot check, and most need
    # nothing: tag characters are never ASCII, and nothing is marker-like without an angle bracket.
    # (str.isascii, not text.isascii, so that anything but text is still a TypeError, as from re.)
    if not str.isascii(text):
        text = _TAG_CHARACTERS.sub("", text)
    if "<" not in text and ">" not in text:
        return text
    return _MARKER_LIKE.sub(_look_alike, text)


def _look_alike(match: re.Match[str]) -> str:
    return match.group().translate(_LOOKALIKE)


def _contains_nonce(text: str, nonce: str) -> bool:
    return nonce.lower() in text.lower()


def new_nonce(untrusted: Iterable[str]) -> str:
    """A fresh random nonce (16 hex digits) that occurs in none of the untrusted texts.

    The texts are checked as written and as neutralized, since removing hidden
    characters could join two halves of a nonce.
    """
    texts = [t for text in untrusted for t in (text, neutralize(text))]
    for _ in range(100):
        nonce = secrets.token_hex(8)
        if not any(_contains_nonce(text, nonce) for text in texts):
            return nonce
    raise RuntimeError("could not draw a nonce absent from the texts; is the random source broken?")


def fence(kind: str, attrs: str, text: str, nonce: str) -> str:
    """Wrap untrusted ``text`` in a nonce-carrying block, neutralizing it first.

    ``kind`` names the block (``candidate``, ``turn``); ``attrs`` are trusted
    attributes such as ``id="Response A"``. ``ValueError`` if the nonce occurs
    in the text: draw nonces with :func:`new_nonce`.
    """
    if not _KIND.match(kind):
        raise ValueError(f"bad block kind {kind!r}")
    if not _ATTRS.match(attrs):
        raise ValueError(f"bad block attributes {attrs!r}")
    if not _NONCE.match(nonce):
        raise ValueError("the nonce must be 8 to 64 lowercase hex digits")
    body = neutralize(text)
    if _contains_nonce(body, nonce):
        raise ValueError("the nonce occurs in the text to fence; draw it with new_nonce()")
    opening = f"<<{kind} {attrs} " if attrs else f"<<{kind} "
    return f'{opening}nonce="{nonce}">>\n{body}\n<</{kind} nonce="{nonce}">>'


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """Replace each ``{name}`` in ``template`` in a single pass.

    Substituted values are never scanned again, so placeholders inside
    untrusted text stay literal. ``KeyError`` names any placeholder without a
    value.
    """
    parts, names = _parsed(template)
    missing = sorted(names - set(values))
    if missing:
        raise KeyError(f"no value for template placeholders: {', '.join(missing)}")
    filled = list(parts)
    filled[1::2] = [values[name] for name in parts[1::2]]
    return "".join(filled)


@functools.lru_cache(maxsize=64)
def _parsed(template: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The template cut at its placeholders (text, name, text, ..., text), and their names; scanned once."""
    parts = tuple(_PLACEHOLDER.split(template))
    return parts, frozenset(parts[1::2])


def render_prompt(name: str, values: Mapping[str, str]) -> str:
    """The prompt template ``prompts/NAME`` filled with ``values`` in one pass (see :func:`fill_template`)."""
    return fill_template(load_prompt(name), values)
