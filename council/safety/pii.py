"""PII checks of the safety gate: identifiers with a valid format and checksum, evidence masked.

See :mod:`council.safety.gate` for the policy (which numbers count, which
documented examples and test numbers pass).
"""

from __future__ import annotations

import re

from council.safety.regex import _rx
from council.safety.scan import SafetyFinding, _Scan
from council.safety.terms import LANGUAGES

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
    r"|\btest\s+(?:visa|mastercard|amex)\b|"
    # "tarjeta de prueba", "carte de test", "Testkarte": the term tables of every language.
    + "|".join(f"(?:{p})" for terms in LANGUAGES for p in terms.test_context)
)
# An IBAN: two letters, two check digits, 11-30 letters and digits, often in groups of four. Written
# digit-first (the check digits) so sre skips prose fast; the country is checked by lookbehind.
_IBAN = re.compile(r"\d(?<=\b[a-z][a-z]\d)\d(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,3})?(?![a-z0-9])")
_IBAN_LENGTHS = {"at": 20, "be": 16, "ch": 21, "de": 22, "dk": 18, "es": 24, "fi": 18, "fr": 27, "gb": 22, "ie": 22,
                 "it": 27, "lu": 20, "nl": 18, "no": 15, "pl": 28, "pt": 25, "se": 24}
# The examples banks and the ISO standard print; they pass with a note, like the example SSNs.
_EXAMPLE_IBANS = frozenset({"de89370400440532013000", "gb82west12345698765432", "es9121000418450200051332",
                            "fr7630006000011234567890189", "nl91abna0417164300", "gb29nwbk60161331926819"})
# A Spanish DNI: eight digits and the check letter (number mod 23). 12345678Z is the usual example.
_DNI = re.compile(r"\d(?<!\d\d)\d{7}[- ]?[a-z](?![a-z0-9])")
_DNI_LETTERS = "trwagmyfpdxbnjzsqvhlcke"


def iban_valid(iban: str) -> bool:
    """True when a compact, lower-case IBAN has its country's length and passes the mod-97 check."""
    if _IBAN_LENGTHS.get(iban[:2]) != len(iban):
        return False
    return int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 == 1


def luhn_valid(digits: str) -> bool:
    """True when a string of digits passes the Luhn checksum used by payment cards."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0



def _check_pii(scan: _Scan, findings: list[SafetyFinding], notes: list[str], allow_example_ssns: bool = False) -> None:
    """PII findings; the published example SSNs pass (with a note) only when ``allow_example_ssns`` says so."""
    text, seen = scan.low, set()
    ssns = [(m, True) for m in _SSN_DASHED.finditer(text)] + [(m, False) for m in _SSN_LOOSE.finditer(text)]
    for m, dashed in ssns:
        digits = re.sub(r"\D", "", m.group(0))
        # Never issued: area 000, 666 or 9xx, group 00, serial 0000.
        if digits[:3] in ("000", "666") or digits[0] == "9" or digits[3:5] == "00" or digits[5:] == "0000":
            continue
        if not dashed and not scan.has(_SSN_LABEL, max(0, m.start() - 40), m.start()):
            continue
        if digits in _EXAMPLE_SSNS and allow_example_ssns:
            notes.append("pii.us_ssn: published example number")
        elif digits not in seen:
            if digits in _EXAMPLE_SSNS:
                # ADR-016 names "SSN: 123-45-6789" as PII exposure: an example is blocked unless the config lets it.
                notes.append("pii.us_ssn: published example number, blocked (safety.pii_allow_example_ssns is off)")
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
    _check_national_ids(scan, findings, notes)


def _check_national_ids(scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    seen: set[str] = set()
    for m in _IBAN.finditer(scan.low):
        iban = scan.low[m.start() - 2 : m.end()].replace(" ", "")
        if not iban_valid(iban):
            continue
        if iban in _EXAMPLE_IBANS:
            notes.append("pii.iban: published example number")
        elif iban not in seen:
            seen.add(iban)
            masked = iban[:2].upper() + "*" * (len(iban) - 6) + iban[-4:]
            findings.append(SafetyFinding(category="pii_exposure", rule="pii.iban", evidence=masked))
    for m in _DNI.finditer(scan.low):
        digits, letter = m.group(0)[:8], m.group(0)[-1]
        if _DNI_LETTERS[int(digits) % 23] != letter:
            continue
        if digits == "12345678":
            notes.append("pii.dni: published example number")
        elif digits not in seen:
            seen.add(digits)
            findings.append(SafetyFinding(category="pii_exposure", rule="pii.dni", evidence="*" * 8 + letter.upper()))
