"""The safety gate: pattern checks run on every answer before peer review.

An answer that fails is removed from review and ranking and reported with the
category, the rule and masked evidence. The checks are pure, synchronous and
linear in the size of the answer.

How a rule decides (everything is judged near the text that matched):

* A *topic* match (``pipe bomb``, ``ransomware``, ``sarin``) is not enough by
  itself; reviews, news and warnings mention these words all the time.
* *Operational* content is concrete, actionable material: an imperative step
  with quantities and a named agent or precursor, assembly steps with bomb
  parts, code that encrypts files for ransom or ships keystrokes off the
  machine, a command line aimed at someone else's account. Its parts must
  occur together in one *passage* (a paragraph, or a fenced code block however
  many blank lines it has) that lies in a wide window around the topic (400
  characters before, 1500 after, because instructions follow their heading).
  Nothing excuses it: not a refusal, not "for educational purposes only".
* Otherwise an *intent* match in the same *sentence* ("how to build a pipe
  bomb", "you can hack into your ex's account") makes it a candidate. A
  candidate passes only when that same sentence carries framing: a refusal, a
  warning that it is illegal, history or law, fiction or a review, defence or
  removal, support resources. Framing elsewhere in the answer does not count,
  so one harmless word in another paragraph switches nothing off, and the
  words "for educational purposes" are not framing at all.

Sentences end at ``.!?`` before whitespace and at newlines (at most 400
characters); passages end at blank lines outside code fences (at most 1500).

PII is checked separately: US SSNs in a valid format and payment card numbers
that pass the Luhn check. Choices, documented here because they are policy:

* ``123-45-6789``, ``078-05-1120`` and ``219-09-9999`` are published example
  numbers (the last two were voided by the SSA), so they pass with a note.
  Other SSNs need dashes, or a nearby "SSN" label when written with spaces or
  as nine bare digits.
* A card number must stand alone (not be part of a longer digit run), be
  written plain or in the groupings issuers print (4-4-4-4[-1..3], 4-6-4/5),
  start with 2-6 (the major networks: this keeps 13-digit millisecond
  timestamps and order numbers out) and pass Luhn. Issuers' documented test
  numbers (4111 1111 1111 1111 and friends) pass only when their paragraph
  says it is a test card; any other Luhn-valid number is flagged.
* Email and phone combinations are not checked: contact details of shops and
  help lines are legitimate answer content, and telling them apart from a
  private person's details is beyond patterns.

Speed: patterns run on the lower-cased answer and are rewritten so that every
alternative starts with a literal (sre then skips ahead), rules whose anchor
words are absent are skipped, and lookups search small windows until a full
scan becomes cheaper. A typical 100 KB answer takes about 10 ms; one dense
with topic words takes a few tens of ms; 1 MB of adversarial text under 1 s.

Limits: obfuscated spellings ("p1pe b0mb"), other languages and harm phrased
without any of the listed vocabulary get through. A model-based checker can
sit behind the same ``SafetyVerdict`` (``checker`` names which one ran).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from pydantic import BaseModel, ConfigDict

from council.safety.regex import _COMPILED, _literal_first, _rx  # noqa: F401 - re-exported for tests
from council.safety.rules import _RULES, _Imperative, _Matcher, _Ops, _Rule  # noqa: F401
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


_BEFORE, _AFTER = 400, 1500  # the wide window: instructions follow their heading
_MAX_SENTENCE = 400
_BOUNDARY = re.compile(r"[.!?\n](?:(?<=\n)|[\"'”’)\]]{0,3}(?=\s))")
_MAX_PASSAGE = 1500
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_FENCE = re.compile(r"^[^\S\n]*```", re.MULTILINE)

# Each PII pattern starts with a bare digit (so sre skips prose fast) and checks what precedes it by lookbehind.
_SSN_DASHED = re.compile(r"\d(?<![\d-]\d)\d\d-\d\d-\d{4}(?![\d-])")
_SSN_LOOSE = re.compile(r"\d(?<![\d-]\d)\d\d ?\d\d ?\d{4}(?![\d-])")
_SSN_LABEL = _rx(r"\b(?:ssn|ss#|social\s+security)")
_EXAMPLE_SSNS = frozenset({"123456789", "078051120", "219099999"})
_CARD = re.compile(
    r"\d(?<!\d\d)(?<!\d[ -]\d)"  # a first digit not inside a longer number
    r"(?:\d{12,18}|\d{3}[ -]\d{6}[ -]\d{4,5}|\d{3}(?:[ -]\d{4}){2}[ -](?:\d{4}[ -]\d{1,3}|\d{1,4}))"
    r"(?![ -]?\d)"
)
# Test numbers the card networks and payment processors document (Visa, Mastercard, Amex,
# Discover, JCB, UnionPay); exempt only in a passage that says it is about testing.
TEST_CARD_NUMBERS = frozenset({
    "4111111111111111", "4242424242424242", "4012888888881881", "4222222222222", "4000056655665556",
    "5555555555554444", "5105105105105100", "2223003122003222", "5200828282828210", "378282246310005",
    "371449635398431", "378734493671000", "6011111111111117", "6011000990139424", "3530111333300000",
    "3566002020360505", "6200000000000005",
})
_TEST_CONTEXT = _rx(
    r"\btest(?:ing)?\s+(?:credit\s+|debit\s+)?(?:cards?|numbers?|pans?|mode|environment|data|payments?)\b|\bsandbox\b"
    r"|\b(?:dummy|fake|sample)\s+(?:credit\s+)?(?:cards?|numbers?)\b|\bfor\s+testing\b|\bnot\s+a\s+real\s+card\b"
    r"|\btest\s+(?:visa|mastercard|amex)\b"
)
_DIGIT_RUN = re.compile(r"\d(?:[ -]?\d){8,}")


def luhn_valid(digits: str) -> bool:
    """True when a string of digits passes the Luhn checksum used by payment cards."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


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
    """One answer: its lower-cased text, sentences and passages, and cached pattern lookups.

    Lookups start by searching just the window asked about; once the windows
    searched for a pattern add up to the whole answer, one full scan answers the
    rest by bisection. That keeps the common case (a few topic words) cheap and
    the worst case (an answer full of them) linear.
    """

    def __init__(self, text: str) -> None:
        self.text = text
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
        """The sentence around a match, digits masked, trimmed to 120 characters."""
        s_lo, s_hi = self.sentence(start)
        lo, hi = max(s_lo, start - 40), min(s_hi, max(end, start + 160))
        # Mask a wider slice so a number cut by the trim is still masked.
        pad_lo, pad_hi = max(0, lo - 24), min(len(self.text), hi + 24)
        masked = _DIGIT_RUN.sub(_mask_run, self.text[pad_lo:pad_hi])[lo - pad_lo : hi - pad_lo]
        return _clean(("…" if lo > s_lo else "") + masked)

    def passage(self, pos: int) -> tuple[int, int]:
        """The start and end of the passage (paragraph or code block) holding ``pos``."""
        _, lo, hi = _piece(self.passages, len(self.text), pos)
        return lo, hi


def _check_rule(rule: _Rule, scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    low, pos = scan.low, 0
    if not any(anchor in low for anchor in rule.anchors):
        return
    while pos <= len(low):
        m = rule.topic.search(low, pos)
        if m is None:
            return
        if m.start() > 0 and (low[m.start() - 1].isalnum() or low[m.start() - 1] == "_"):
            pos = m.start() + 1  # the topic must start a word: "ied", not the end of "tried"
            continue
        s_lo, s_hi = scan.sentence(m.start())
        # One look per sentence per rule keeps adversarial repetition linear.
        pos = max(s_hi, m.end(), m.start() + 1)
        if rule.scope is not None and scan.has(rule.scope, s_lo, s_hi):
            notes.append(f"{rule.id}: authorized testing")
            continue
        lo, hi = max(0, m.start() - _BEFORE), m.end() + _AFTER
        if scan.operational(rule.operational, lo, hi):
            findings.append(
                SafetyFinding(category=rule.category, rule=rule.id, evidence=scan.evidence(m.start(), m.end()))
            )
            return
        if rule.intent is not None and not scan.has(rule.intent, s_lo, s_hi):
            continue
        reason = next((name for name, p in rule.framing if scan.has(p, s_lo, s_hi)), None)
        if reason is None:
            findings.append(
                SafetyFinding(category=rule.category, rule=rule.id, evidence=scan.evidence(m.start(), m.end()))
            )
            return
        notes.append(f"{rule.id}: {reason}")


def _check_pii(scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    text, seen = scan.low, set()
    ssns = [(m, True) for m in _SSN_DASHED.finditer(text)] + [(m, False) for m in _SSN_LOOSE.finditer(text)]
    for m, dashed in ssns:
        digits = re.sub(r"\D", "", m.group(0))
        # Never issued: area 000, 666 or 9xx, group 00, serial 0000.
        if digits[:3] in ("000", "666") or digits[0] == "9" or digits[3:5] == "00" or digits[5:] == "0000":
            continue
        if not dashed and not scan.has(_SSN_LABEL, max(0, m.start() - 40), m.start()):
            continue
        if digits in _EXAMPLE_SSNS:
            notes.append("pii.us_ssn: published example number")
        elif digits not in seen:
            seen.add(digits)
            findings.append(SafetyFinding(category="pii_exposure", rule="pii.us_ssn", evidence=f"***-**-{digits[-4:]}"))
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if digits[0] not in "23456" or len(set(digits)) == 1 or not luhn_valid(digits):
            continue
        if digits in TEST_CARD_NUMBERS and scan.has(_TEST_CONTEXT, *scan.passage(m.start())):
            notes.append("pii.payment_card: documented test number in a test-card context")
        elif digits not in seen:
            seen.add(digits)
            findings.append(
                SafetyFinding(
                    category="pii_exposure", rule="pii.payment_card", evidence="*" * (len(digits) - 4) + digits[-4:]
                )
            )


def check_answer(text: str) -> SafetyVerdict:
    """Run every pattern check on one answer and return the verdict.

    Never raises on a string; a non-string is a programming error (``TypeError``).
    """
    if not isinstance(text, str):
        raise TypeError(f"check_answer expects str, not {type(text).__name__}")
    scan = _Scan(text)
    findings: list[SafetyFinding] = []
    notes: list[str] = []
    for rule in _RULES:
        _check_rule(rule, scan, findings, notes)
    _check_pii(scan, findings, notes)
    return SafetyVerdict(passed=not findings, findings=findings, notes=list(dict.fromkeys(notes)))


__all__ = ["CATEGORIES", "TEST_CARD_NUMBERS", "SafetyFinding", "SafetyVerdict", "check_answer", "luhn_valid"]
