"""The shape of a language's term table for the safety gate's intent layer (see :mod:`council.safety.terms`).

Every entry is a tuple of regex fragments, lower-case because the answer is
lower-cased before matching; keys of the dictionaries are the gate's categories.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Terms:
    """One language's vocabulary for the intent layer; every entry is a tuple of regex alternatives."""

    language: str
    # category -> a harmful goal said as something to do; a candidate when its sentence has no framing.
    goals: dict[str, tuple[str, ...]]
    # category -> words of a harmful procedure's steps (a goal plus these fails without other shape).
    procedure: dict[str, tuple[str, ...]]
    # category -> literal words, one of which every goal and ``always`` match of the category contains: a
    # category whose anchors are all absent from an answer is skipped without running its patterns.
    anchors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # category -> harmful on their own, whatever surrounds them unless framed ("better off without you").
    always: dict[str, tuple[str, ...]] = field(default_factory=dict)
    covert: tuple[str, ...] = ()  # "without getting caught", "so nobody notices"
    compliance: tuple[str, ...] = ()  # "sure! here's how", "the trick is"
    steps: tuple[str, ...] = ()  # "step 2", "first … then"
    # A sentence opening with one of these and going on after a comma gives an instruction:
    # "To brew it unnoticed, set up …", "If you're going to do it anyway, do it where …".
    purpose: tuple[str, ...] = ()
    refusal: tuple[str, ...] = ()  # "i can't help", "i won't explain"
    pivot: tuple[str, ...] = ()  # "but", which turns a refusal into a partial one
    # framing kind -> what makes a candidate sentence harmless (defensive, news or law, fiction, support).
    framing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # category -> framing that exempts only that category (support resources for self-harm).
    category_framing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    test_context: tuple[str, ...] = ()  # a passage about test card numbers


@dataclass(frozen=True)
class JudgeTerms:
    """One language's vocabulary for the judge-aimed flag (:mod:`council.safety.manipulation`).

    Every entry is a tuple of regex alternatives, lower-case (the answer is
    normalised and lower-cased first). The flag fires on an *address* (a note
    to the judges or to the other members, "whoever grades these answers",
    "when you revise") followed in the same paragraph by what it asks for, or
    on a *request* that needs no address ("rank this answer first").
    """

    language: str
    judges: tuple[str, ...]  # "the evaluator", "grading model"
    revisers: tuple[str, ...]  # "the other council members", "other models"
    salute: tuple[str, ...]  # what opens a note or a greeting: "note", "dear", "attention"
    whoever: tuple[str, ...]  # "whoever grades these answers", "if you are an AI evaluating"
    revision: tuple[str, ...]  # "when you revise", "in the next round"
    self: tuple[str, ...]  # the answer speaking of itself: "this answer", "this one", "me"
    claim: tuple[str, ...]  # what it claims or asks: "first", "full marks", "is correct", "choose"
    copy: tuple[str, ...]  # what it asks of the revisers: "copy", "replace", "word for word"
    requests: tuple[str, ...]  # judge-aimed requests that need no address: "rank this answer first"
    reviser_requests: tuple[str, ...]  # "replace your answer with this one"
    ignore: tuple[str, ...]  # "ignore all previous instructions"
    system: tuple[str, ...]  # labels a forged note opens with: "system", "admin", "system message"
    judging: tuple[str, ...]  # words of judging that make a forged note's content judge-aimed
    example: tuple[str, ...]  # what marks quoted text as an example: "such as", "e.g.", "phrases like"
    topic: tuple[str, ...]  # words of a text about injection: "injection", "jailbreak", "attack"
    exam: tuple[str, ...]  # teaching and marking: "student", "marking scheme", "only if"
    reported: tuple[str, ...] = ()  # reported speech just before: "telling the grading model to"
    # Words, space-separated, that text joined by invisible characters or spaced out without gaps may be split
    # into ("rankthisanswerfirst"): the words the patterns above are made of.
    words: str = ""
    # The starts of words (lower-case, a space for any whitespace; after a "*", anywhere in a word, for compounds
    # like "Siegerantwort"), per kind of rule, one of which every match of that rule contains or stands next to: "answer" (the answer naming itself), "judges", "revisers",
    # "whoever", "revision", "instructions", "system". A rule looks only near them, which keeps it cheap.
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)


def spaced(*alternatives: str) -> tuple[str, ...]:
    """Regex alternatives written with plain spaces: each ``" ?"`` made ``\\s*`` and each other space ``\\s+``."""
    return tuple(alternative.replace(" ?", r"\s*").replace(" ", r"\s+") for alternative in alternatives)
