"""The intent layer of the safety gate: a harmful goal said as something to do, in any listed language.

The rule table (:mod:`council.safety.rules`) looks for concrete operational
content in English. Models more often answer a harmful request with an
outline: "Sure! Here's how to take over someone's account: 1. …". This
layer catches that shape from the term tables of :mod:`council.safety.terms`:

* a *goal* match ("take over someone's email account", "fabricar una bomba
  casera", "te faire du mal sans que personne ne le remarque") is a
  candidate;
* the candidate passes when its sentence carries framing: defensive advice,
  news, history or law, fiction, support resources (self-harm), or a
  refusal. A refusal followed in the same sentence by "but" ("I can't give
  you everything, but here's the process") is a partial refusal: it frames
  nothing and itself announces content;
* an unframed candidate fails when it is delivered: its sentence opens with
  a purpose and goes on after a comma ("To brew it unnoticed, set up …"),
  or the text from its paragraph to 1500 characters after it holds steps
  or a list, a compliance opener ("Sure!", "the trick is"), a covert aim
  ("without anyone noticing") or words of the harmful procedure.

Without any goal, a passage fails when it holds two distinct procedure words
of one category ("shadow copies", "ransom note"), steps or an opener, and no
framing at all: a code skeleton or "ransomware is basically three parts".
``always`` terms (telling someone they would be better off dead) fail
wherever they stand unless their sentence is framed. Goals are matched on a
copy of the answer where quotes and underscores are spaces ("'borrow'
someone's account", ``steal_passwords()``). Each finding's rule names the
category and the language of the goal (``intent.self_harm.fr``), or
``procedure`` / ``always``.

Speed: every category lists literal *anchors*; a category none of whose
anchors occur in an answer is skipped without running its patterns (the
anchor check itself, a substring search per anchor, is most of the cost on
long answers that mention none of the topics).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from council.safety.regex import SafetyPattern, _alternatives, _flatten, _rx
from council.safety.scan import SafetyFinding, _Scan
from council.safety.terms import LANGUAGES, Terms

_BEFORE, _AFTER = 400, 1500  # an outline follows its heading
# Quotes around a word ("'borrow' someone's account") and underscores in code (steal_passwords) would
# split a goal; goals are matched on a copy where they are spaces (same length, so offsets hold).
# Anchors are made of word characters, hyphens and apostrophes, so each occurrence lies inside one run
# of them: looking for the anchors among an answer's distinct runs is exact, and much shorter.
TOKEN = re.compile(r"[\w'’-]+")
_GOAL_NOISE = re.compile(r"_|[\"«»„“”]|(?<!\w)['’‘]|['’‘](?!\w)")


def _either(parts: Iterable[str]) -> str:
    return "|".join(f"(?:{p})" for p in parts)


def _words(parts: Iterable[str]) -> SafetyPattern | None:
    # Every part starts a word; a part's own leading \b would stand twice, which stops sre skipping ahead.
    joined = _either(p.removeprefix(r"\b") for p in parts)
    return _rx(rf"\b(?:{joined})") if joined else None


def _literal_prefix(pattern: str) -> str:
    """The literal text every match of ``pattern`` (one alternative) starts with, e.g. ``fuse`` for ``\\bfuses?\\b``."""
    pattern, out = pattern.removeprefix(r"\b"), []
    for i, ch in enumerate(pattern):
        if not (ch.isalnum() or ch in " -'’"):
            break
        if pattern[i + 1 : i + 2] in ("?", "*", "{"):
            break  # this character may be absent
        out.append(ch)
    return "".join(out)


def _prefixes(parts: Iterable[str]) -> frozenset[str] | None:
    """Literal prefixes one of which every match of ``parts`` contains; None when some part has none to give."""
    found = [_literal_prefix(alt) for part in parts for alt in _alternatives(_flatten(part))]
    return frozenset(found) if all(len(p) >= 3 for p in found) else None


class _Tables:
    """The term tables compiled: goals per category and language, every other slot joined across languages."""

    def __init__(self, languages: tuple[Terms, ...]) -> None:
        self.goals: list[tuple[str, str, frozenset[str], SafetyPattern]] = []
        for terms in languages:
            for category, goals in terms.goals.items():
                pattern = _words(goals)
                if pattern is not None:
                    self.goals.append((category, terms.language, frozenset(terms.anchors.get(category, ())), pattern))
        categories = sorted({c for t in languages for c in [*t.goals, *t.always]})
        self.always = {c: _words(p for t in languages for p in t.always.get(c, ())) for c in categories}
        self.anchors = {c: frozenset(a for t in languages for a in t.anchors.get(c, ())) for c in categories}
        self.every_anchor = tuple(sorted(frozenset().union(*self.anchors.values())))
        self.procedure = {c: _words(p for t in languages for p in t.procedure.get(c, ())) for c in categories}
        self.procedure_prefixes = {
            c: _prefixes(p for t in languages for p in t.procedure.get(c, ())) for c in categories
        }
        self.support = {c: _words(p for t in languages for p in t.category_framing.get(c, ())) for c in categories}
        self.shape = _rx(_either(p for t in languages for p in (*t.compliance, *t.steps, *t.covert)))
        # The purpose opener must start the sentence (after list markers and quotes) and a comma follow.
        # Matched at a sentence start, so a plain pattern (the speed rewrite is for searching).
        self.purpose = re.compile(rf"[\W\d]{{0,6}}(?:{_either(p for t in languages for p in t.purpose)})\b")
        self.refusal = _rx(_either(p for t in languages for p in t.refusal))
        self.pivot = _rx(_either(p for t in languages for p in t.pivot))
        kinds = dict.fromkeys(k for t in languages for k in t.framing)
        self.framing = [(k, _rx(_either(p for t in languages for p in t.framing.get(k, ())))) for k in kinds]


@functools.cache
def _tables() -> _Tables:
    return _Tables(LANGUAGES)


def _framing(tables: _Tables, scan: _Scan, category: str, lo: int, hi: int) -> str | None:
    """Why the sentence ``[lo, hi)`` is harmless, None when nothing frames it, ``"partial refusal"`` for a
    refusal followed by "but" (which frames nothing and announces content)."""
    for name, pattern in tables.framing:
        if scan.has(pattern, lo, hi):
            return name
    support = tables.support.get(category)
    if support is not None and scan.has(support, lo, hi):
        return "support resources"
    # The last refusal counts: "Sorry, but I can't …" refuses, "I can't …, but here's how" does not.
    refusals = list(tables.refusal.finditer(scan.low, lo, hi))
    refusal = refusals[-1] if refusals else None
    if refusal is not None:
        return "refusal" if tables.pivot.search(scan.low, refusal.end(), hi) is None else "partial refusal"
    return None


def _delivers(tables: _Tables, scan: _Scan, category: str, lo: int, hi: int) -> bool:
    """Whether ``[lo, hi)`` holds steps, a compliance opener, a covert aim or the procedure's words."""
    if scan.has(tables.shape, lo, hi):
        return True
    procedure = tables.procedure.get(category)
    return procedure is not None and scan.has(procedure, lo, hi)


def _instructs(tables: _Tables, scan: _Scan, s_lo: int, goal_end: int, s_hi: int) -> bool:
    """Whether the sentence opens with a purpose ("To …", "If you want to …") and goes on after a comma."""
    return tables.purpose.match(scan.low, s_lo, s_hi) is not None and "," in scan.low[goal_end:s_hi]


def check_intent(scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    """Add a finding per category whose harmful goal an answer delivers, and notes on framed candidates."""
    tables, low = _tables(), scan.low
    # One pass over every anchor, rather than one per pattern, in the answer's distinct words.
    words = " ".join(set(TOKEN.findall(low)))
    present = {anchor for anchor in tables.every_anchor if anchor in words}
    text = _GOAL_NOISE.sub(" ", low) if present else low
    failed = {finding.category for finding in findings}  # the rule table found these already
    for category, language, anchors, goal in tables.goals:
        if category in failed or present.isdisjoint(anchors):
            continue
        seen = -1
        for m in goal.finditer(text):
            s_lo, s_hi = scan.sentence(m.start())
            if s_lo == seen:
                continue
            seen = s_lo
            reason = _framing(tables, scan, category, s_lo, s_hi)
            if reason is not None and reason != "partial refusal":
                notes.append(f"intent.{category}: {reason}")
                continue
            # From the start of its paragraph ("Sure! To make …" opens before the goal's sentence) onwards.
            lo = max(scan.passage(m.start())[0], s_lo - _BEFORE)
            if (reason == "partial refusal" or _instructs(tables, scan, s_lo, m.end(), s_hi)
                    or _delivers(tables, scan, category, lo, min(len(low), m.end() + _AFTER))):
                rule, evidence = f"intent.{category}.{language}", scan.evidence(m.start(), m.end())
                findings.append(SafetyFinding(category=category, rule=rule, evidence=evidence))
                failed.add(category)
                break
    _check_procedures(tables, scan, text, findings, failed)
    for category, pattern in tables.always.items():
        if category in failed or pattern is None or present.isdisjoint(tables.anchors[category]):
            continue
        for m in pattern.finditer(low):
            s_lo, s_hi = scan.sentence(m.start())
            if _framing(tables, scan, category, s_lo, s_hi) is None:
                evidence = scan.evidence(m.start(), m.end())
                findings.append(SafetyFinding(category=category, rule=f"intent.{category}.always", evidence=evidence))
                break


def _check_procedures(tables: _Tables, scan: _Scan, text: str, findings: list[SafetyFinding], failed: set[str]) -> None:
    """A passage that names no goal but delivers a procedure: two distinct procedure words of a category
    (shadow copies and a ransom note), with steps or an opener, and no framing anywhere in the passage."""
    for category, pattern in tables.procedure.items():
        if category in failed or pattern is None:
            continue
        prefixes = tables.procedure_prefixes[category]
        if prefixes is not None and sum(prefix in text for prefix in prefixes) < 2:
            continue  # two distinct words are needed, and fewer than two can start here
        words: dict[int, set[str]] = {}
        for m in pattern.finditer(text):
            start, word = scan.passage(m.start())[0], m.group(0)
            # A word is known by its term's literal prefix ("keystroke" and "keystrokes" are one word).
            term = next((p for p in prefixes if word.startswith(p)), word) if prefixes else word.rstrip("s")
            words.setdefault(start, set()).add(term)
            if len(words[start]) != 2:
                continue
            lo, hi = scan.passage(m.start())
            if scan.has(tables.shape, lo, hi) and _framing(tables, scan, category, lo, hi) in (None, "partial refusal"):
                rule, evidence = f"intent.{category}.procedure", scan.evidence(m.start(), m.end())
                findings.append(SafetyFinding(category=category, rule=rule, evidence=evidence))
                failed.add(category)
                break
