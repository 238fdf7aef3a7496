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
