"""PII checks of the safety gate: identifiers with a valid format and checksum, evidence masked.

See :mod:`council.safety.gate` for the policy (which numbers count, which
documented examples and test numbers pass).
"""

from __future__ import annotations

import re

from council.safety.findings import SafetyFinding
from council.safety.regex import _rx
from council.safety.scan import _Scan

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


def luhn_valid(digits: str) -> bool:
    """True when a string of digits passes the Luhn checksum used by payment cards."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0



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

