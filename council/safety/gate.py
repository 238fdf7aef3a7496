"""The safety gate: pattern checks run on every answer before peer review.

An answer that fails is removed from review and ranking and reported with the
category, the rule and masked evidence. The checks are pure, synchronous and
linear in the size of the answer.

Every check reads the answer normalised (:mod:`council.safety.normalise`:
NFKC, invisible characters dropped, Cyrillic and Greek look-alike letters
folded, spaced-out letters joined), so "pi\u200bpe bomb" or a card number in
full-width digits is read as written plainly; evidence still quotes the
answer as written.

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

After the rule table, the *intent layer* (:mod:`council.safety.intent`, with
term tables for English, Spanish, French and German in
:mod:`council.safety.terms`) catches what models more often write: an
outline of a harmful goal ("Sure! Here's how to take over someone's account:
1. …"), judged by the same rule that framing must sit in the goal's sentence.

PII is checked separately: US SSNs in a valid format, payment card numbers
that pass the Luhn check, IBANs that pass the mod-97 check and Spanish DNIs
with the right check letter (:mod:`council.safety.pii`). Choices, documented
here because they are policy:

* ``123-45-6789``, ``078-05-1120`` and ``219-09-9999`` are published example
  numbers (the last two were voided by the SSA). ADR-016 names
  "SSN: 123-45-6789" as PII exposure, so they are blocked like any other SSN
  unless ``safety.pii_allow_example_ssns`` is on (``allow_example_ssns``
  here); then they pass with a note. SSNs need dashes, or a nearby "SSN"
  label when written with spaces or as nine bare digits.
* A card number must stand alone (not be part of a longer digit run), be
  written plain or in the groupings issuers print (4-4-4-4[-1..3], 4-6-4/5),
  start with 2-6 (the major networks: this keeps 13-digit millisecond
  timestamps and order numbers out) and pass Luhn. Issuers' documented test
  numbers (4111 1111 1111 1111 and friends) pass only when their paragraph
  says it is a test card (in any of the four languages: "tarjeta de prueba",
  "carte de test", "Testkarte"); any other Luhn-valid number is flagged.
* The example IBANs banks and the standard print (DE89 3704 0044 0532 0130 00
  and friends) and the example DNI 12345678Z pass with a note.
* Email and phone combinations are not checked: contact details of shops and
  help lines are legitimate answer content, and telling them apart from a
  private person's details is beyond patterns.

Speed: patterns run on the lower-cased answer and are rewritten so that every
alternative starts with a literal (sre then skips ahead), rules whose anchor
words are absent are skipped, and lookups search small windows until a full
scan becomes cheaper. With the intent layer a 100 KB answer takes a few tens
of ms (about 40 ms of prose, 55-70 ms of on-topic text on the 2-core machine
in docs/security.md, against 15-30 ms before it); 1 MB of adversarial text
under 1 s. ``scripts/bench_safety.py`` measures recall, false positives and
cost per KB on the labelled corpus in tests/data/safety/.

Limits: obfuscated spellings ("p1pe b0mb"), languages without a term table,
and harm phrased outside the tables' vocabulary get through: on answers
written after the tables were tuned, recall was 0.42 at first look (see
docs/security.md). A model-based checker can sit behind the same
``SafetyVerdict`` (``checker`` names which one ran).
"""

from __future__ import annotations

from council.safety.intent import check_intent
from council.safety.pii import TEST_CARD_NUMBERS, _check_pii, luhn_valid
from council.safety.regex import _COMPILED, _literal_first, _rx  # noqa: F401 - re-exported for tests
from council.safety.rules import _RULES, _Imperative, _Matcher, _Ops, _Rule  # noqa: F401
from council.safety.scan import CATEGORIES, SafetyFinding, SafetyVerdict, _Scan

_BEFORE, _AFTER = 400, 1500  # the wide window: instructions follow their heading


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



def check_answer(text: str, *, allow_example_ssns: bool = False) -> SafetyVerdict:
    """Run every pattern check on one answer and return the verdict.

    ``allow_example_ssns`` lets the published example SSNs pass (the
    config's ``safety.pii_allow_example_ssns``; off, they are blocked).
    Never raises on a string; a non-string is a programming error (``TypeError``).
    """
    if not isinstance(text, str):
        raise TypeError(f"check_answer expects str, not {type(text).__name__}")
    scan = _Scan(text)
    findings: list[SafetyFinding] = []
    notes: list[str] = []
    for rule in _RULES:
        _check_rule(rule, scan, findings, notes)
    check_intent(scan, findings, notes)
    _check_pii(scan, findings, notes, allow_example_ssns)
    return SafetyVerdict(passed=not findings, findings=findings, notes=list(dict.fromkeys(notes)))



__all__ = ["CATEGORIES", "TEST_CARD_NUMBERS", "SafetyFinding", "SafetyVerdict", "check_answer", "luhn_valid"]
