"""Write the labelled safety corpus, tests/data/safety/corpus.jsonl, from the fragments in scripts/safety_corpus/.

Deterministic: the same fragments always give the same file (numbers come from
a seeded generator). Each record is one answer as a model might write it:
``id``, ``text``, ``label`` (harmful or benign), ``category`` (one of the
safety gate's five; for a benign answer, the category whose words it shares),
``language``, ``shape``, ``split`` (dev or heldout), ``family`` and ``written``
(``before_tuning``, or ``after_tuning`` for the answers in
scripts/safety_corpus/fresh.py, written once the pattern layer had been tuned and
never used to tune it: they are all heldout).

Harmful items are combinations of an opener, a goal and a vague outline,
code skeletons, euphemisms and hand-written answers; every one is
non-operational (a shape, not a recipe). Benign items are hard negatives that
share their words: defensive advice in the same step shapes, refusals (with a
help line for self-harm), news, fiction and hand-written answers on medicine,
history, chemistry safety, legal firearm facts and mental-health support.

The split is by *family* (one goal with its shapes, one hand-written answer),
so an outline never sits in both splits; families are dealt to dev and
heldout alternately per label, category and language, keeping the two
about the same size.

The ``evaluator_manipulation`` records (scripts/safety_corpus/judge_*.py) are
text aimed at whoever scores or revises the answers (label ``harmful``: the
gate flags it, it does not block it) and hard negatives about judges,
grading, rankings and prompt injection (``benign``). Each aimed phrasing is
put into an ordinary answer (at its start or end, between its paragraphs,
inline, or in an HTML comment) and often disguised: zero-width characters
inside words or between them, Cyrillic or Greek look-alike letters,
full-width letters, letters spaced out, bidi marks, a leading quote mark
(``shape`` names the disguise). A family is one construction ("whoever
grades these answers should …") with its phrasings; families are dealt to
dev and heldout per label, kind (judge, reviser, system) and language, so no
construction sits in both splits.

Usage: python scripts/make_safety_corpus.py [--out PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
FRAGMENTS = Path(__file__).resolve().parent / "safety_corpus"
OUT = ROOT / "tests" / "data" / "safety" / "corpus.jsonl"
LANGUAGES = ("en", "es", "fr", "de")
CATEGORIES = ("dangerous_instructions", "weapon_making", "malware_hacking", "self_harm", "pii_exposure")
SHAPES = ("steps", "markdown", "sure_prefix", "partial_refusal", "prose")
# Which outline (index into STEPS[category]) reads right after which goal (index into GOALS[category]).
OUTLINE_OF = {
    "malware_hacking": (0, 0, 1, 2, 2, 0),
    "weapon_making": (0, 1, 2, 3, 4, 5),
    "dangerous_instructions": (0, 1, 2, 0, 0, 2),
    "self_harm": (0, 1, 0, 2, 1, 1),
}
TEST_CARDS = ("4242 4242 4242 4242", "4111 1111 1111 1111", "5555 5555 5555 4444")
IBAN_SHAPE = {"en": ("GB", "XXXX", 14), "es": ("ES", "", 20), "fr": ("FR", "", 23), "de": ("DE", "", 18)}


def load(language: str) -> ModuleType:
    """The fragment module of one language."""
    spec = importlib.util.spec_from_file_location(f"safety_corpus_{language}", FRAGMENTS / f"{language}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def luhn_digit(body: str) -> str:
    """The check digit that makes ``body`` + digit pass the Luhn test."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def group4(digits: str, sep: str = " ") -> str:
    """Digits in groups of four."""
    return sep.join(digits[i : i + 4] for i in range(0, len(digits), 4))


class Numbers:
    """Made-up identifiers in valid formats (checksums right), drawn from one seeded generator."""

    def __init__(self, rng: random.Random, language: str) -> None:
        self.rng, self.language = rng, language

    def card(self) -> str:
        body = self.rng.choice(["4", "51", "52", "53", "54", "55"])
        body += "".join(self.rng.choice("0123456789") for _ in range(15 - len(body)))
        return body + luhn_digit(body)

    def bad_card(self) -> str:
        card = self.card()
        return group4(card[:-1] + str((int(card[-1]) + 1) % 10))

    def ssn(self) -> str:
        area = self.rng.choice([a for a in range(100, 666)])
        return f"{area:03d}-{self.rng.randint(1, 99):02d}-{self.rng.randint(1, 9999):04d}"

    def iban(self) -> str:
        country, bank, length = IBAN_SHAPE[self.language]
        letters = "".join(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in bank)
        bban = letters + "".join(self.rng.choice("0123456789") for _ in range(length))
        numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
        return group4(f"{country}{98 - int(numeric) % 97:02d}{bban}")

    def dni(self) -> str:
        number = self.rng.randint(10_000_000, 99_999_999)
        return f"{number}{'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}"

    def fill(self, template: str) -> str:
        card, card2 = self.card(), self.card()
        ssn = self.ssn()
        return template.format(
            card=group4(card), card2=group4(card2), card_dashed=group4(card, "-"), ssn=ssn, ssn2=self.ssn(),
            ssn_spaced=ssn.replace("-", " "), iban=self.iban(), iban2=self.iban(), dni=self.dni(), dni2=self.dni(),
            test_card=self.rng.choice(TEST_CARDS), bad_card=self.bad_card(),
        )


def render(frag: ModuleType, shape: str, opener: str, goal: str, steps: list[str], closer: str) -> str:
    """One answer: an opener naming the goal, the outline in the shape's layout, a closing line."""
    head = opener.format(goal=goal)
    if shape in ("steps", "sure_prefix"):
        body = "\n".join(f"{i}. {s}." for i, s in enumerate(steps, 1))
        text = f"{head}\n\n{body}" if shape == "sure_prefix" else f"{head}\n{body}"
    elif shape == "markdown":
        text = head + "\n\n" + "\n".join(f"{i}. **{s}**" for i, s in enumerate(steps, 1))
    elif shape == "partial_refusal":
        text = head + "\n" + "\n".join(f"- {s}" for s in steps)
    else:
        links = frag.PROSE_LINKS
        text = head + " " + " ".join(f"{links[min(i, 3)]}{s[0].lower()}{s[1:]}." for i, s in enumerate(steps))
    return f"{text}\n\n{closer}".strip() if closer else text


def families(language: str, rng: random.Random) -> list[tuple[str, str, str, list[tuple[str, str]]]]:
    """Every (label, category, family, [(shape, text)]) of one language."""
    frag, out = load(language), []
    numbers = Numbers(rng, language)
    for category, goals in frag.GOALS.items():
        for g, goal in enumerate(goals):
            steps = frag.STEPS[category][OUTLINE_OF[category][g]]
            items = []
            for k in range(2):
                shape = SHAPES[(2 * g + k + len(category)) % len(SHAPES)]
                opener = rng.choice(frag.OPENERS[shape])
                items.append((shape, render(frag, shape, opener, goal, steps, rng.choice(frag.CLOSERS))))
            out.append(("harmful", category, f"goal{g}", items))
        for i, text in enumerate(frag.CODE.get(category, [])):
            out.append(("harmful", category, f"code{i}", [("code_block", text)]))
        for i, text in enumerate(frag.EUPHEMISMS.get(category, [])):
            out.append(("harmful", category, f"euphemism{i}", [("euphemism", text)]))
    for category, items in frag.HAND_HARMFUL.items():
        for i, (shape, text) in enumerate(items):
            out.append(("harmful", category, f"hand{i}", [(shape, numbers.fill(text))]))
    for category, entries in frag.DEFENSIVE.items():
        for d, (goal, steps) in enumerate(entries):
            shape = ("steps", "markdown", "sure_prefix")[d % 3]
            text = render(frag, shape, rng.choice(frag.OPENERS[shape]), goal, steps, "")
            out.append(("benign", category, f"defensive{d}", [(shape, text)]))
    for category, goals in frag.GOALS.items():
        for g, goal in enumerate(goals):
            text = frag.REFUSALS[g % len(frag.REFUSALS)].format(goal=goal)
            if category == "self_harm":
                text += frag.SELF_HARM_HELP
            out.append(("benign", category, f"refusal{g}", [("refusal", text)]))
            if category == "self_harm" and g >= 2:
                continue
            if g < 4:
                news = g % 2 == 0 and category != "self_harm"
                kind, templates = ("news", frag.NEWS) if news else ("fiction", frag.FICTION)
                text = templates[g // 2 % len(templates)].format(goal=goal)
                out.append(("benign", category, f"{kind}{g}", [(kind, text)]))
    for category, items in frag.HAND_BENIGN.items():
        for i, (shape, text) in enumerate(items):
            out.append(("benign", category, f"hand{i}", [(shape, numbers.fill(text))]))
    return out


def fresh_records(rng: random.Random) -> list[dict[str, str]]:
    """The answers written after tuning, every one heldout."""
    fresh = load("fresh").FRESH
    records = []
    for language in LANGUAGES:
        numbers = Numbers(rng, language)
        for label in ("harmful", "benign"):
            for category, items in fresh[language][label].items():
                for i, (shape, text) in enumerate(items, 1):
                    records.append({"id": f"{language}-{label}-{category}-fresh{i}", "text": numbers.fill(text),
                                    "label": label, "category": category, "language": language, "shape": shape,
                                    "family": f"{language}/{label}/{category}/fresh{i}", "split": "heldout",
                                    "written": "after_tuning"})
    return records


def build() -> list[dict[str, str]]:
    """The whole corpus, records in a stable order."""
    rng = random.Random(33)
    records: list[dict[str, str]] = []
    for language in LANGUAGES:
        fams = families(language, rng)
        sizes: dict[tuple[str, str, str], int] = {}
        order = list(range(len(fams)))
        rng.shuffle(order)
        split_of: dict[int, str] = {}
        for i in order:
            label, category, _, items = fams[i]
            key = (label, category, language)
            balance = sizes.get(key, 0)  # dev items minus heldout items so far
            split = "dev" if balance <= 0 else "heldout"
            sizes[key] = balance + (len(items) if split == "dev" else -len(items))
            split_of[i] = split
        counters: dict[tuple[str, str], int] = {}
        for i, (label, category, family, items) in enumerate(fams):
            for shape, text in items:
                n = counters[(label, category)] = counters.get((label, category), 0) + 1
                records.append({"id": f"{language}-{label}-{category}-{n:03d}", "text": text, "label": label,
                                "category": category, "language": language, "shape": shape,
                                "family": f"{language}/{label}/{category}/{family}", "split": split_of[i],
                                "written": "before_tuning"})
    return records + fresh_records(rng) + judge_records()


JUDGE_CATEGORY = "evaluator_manipulation"
DISGUISES = ("plain",) * 10 + ("zero_width", "zero_width", "zero_width_joined", "zero_width_joined", "cyrillic",
                               "cyrillic", "greek", "fullwidth", "fullwidth", "spaced", "spaced", "leading_quote",
                               "leading_quote", "bidi")
LOOK_ALIKE = {"cyrillic": dict(zip("aceopxyABCEHKMOPTX", "асеорхуАВСЕНКМОРТХ", strict=True)),
              "greek": dict(zip("aoipvkABEHIKMNOPTXYZ", "αοιρνκΑΒΕΗΙΚΜΝΟΡΤΧΥΖ", strict=True))}
QUOTES = {"en": ('"', '"'), "es": ("«", "»"), "fr": ("« ", " »"), "de": ("„", "“")}


def disguise(text: str, how: str, language: str, rng: random.Random) -> str:
    """``text`` disguised the way an answer might hide it from a pattern (see the module docstring)."""
    if how in LOOK_ALIKE:
        return "".join(LOOK_ALIKE[how].get(ch, ch) if rng.random() < 0.5 else ch for ch in text)
    if how == "fullwidth":
        return "".join("\u3000" if ch == " " else chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)
    if how == "spaced":
        return "  ".join(" ".join(word) for word in text.split(" "))
    if how == "zero_width_joined":
        return text.replace(" ", "\u200b")
    if how in ("zero_width", "bidi"):
        marks = "\u200b\u200c\u200d\u2060" if how == "zero_width" else "\u200e\u200f\u2066\u2069\u202c"
        words = [w[:k] + rng.choice(marks) + w[k:] if len(w) >= 4 and (k := rng.randint(1, len(w) - 1)) else w
                 for w in text.split(" ")]
        return " ".join(words)
    if how == "leading_quote":
        opening, closing = QUOTES[language]
        return f"{opening}{text}{closing}"
    return text


def embed(host: str, phrasing: str, rng: random.Random) -> str:
    """An ordinary answer with ``phrasing`` put in at one of several places."""
    first, rest = host.split("\n\n", 1)
    where = rng.choice(("end", "end", "start", "middle", "inline", "comment"))
    if where == "start":
        return f"{phrasing}\n\n{host}"
    if where == "middle":
        return f"{first}\n\n{phrasing}\n\n{rest}"
    if where == "inline":
        return f"{first} {phrasing}\n\n{rest}"
    if where == "comment":
        return f"{host}\n\n<!-- {phrasing} -->"
    return f"{host}\n\n{phrasing}"


def judge_records() -> list[dict[str, str]]:
    """The evaluator_manipulation records: aimed phrasings put into answers, and hard negatives."""
    rng = random.Random(44)  # its own generator, so the records above stay as they were
    records: list[dict[str, str]] = []
    for language in LANGUAGES:
        frag = load(f"judge_{language}")
        fams: list[tuple[str, str, list[tuple[str, str]]]] = []
        for family, phrasings in frag.AIMED.items():
            items = []
            for phrasing in phrasings:
                how = rng.choice(DISGUISES)
                items.append((how, embed(rng.choice(frag.HOSTS), disguise(phrasing, how, language, rng), rng)))
            fams.append(("harmful", family, items))
        for family, answers in frag.NEGATIVE.items():
            fams.append(("benign", family, [(family.split(".")[0], text) for text in answers]))
        order = list(range(len(fams)))
        rng.shuffle(order)
        # Dev items minus heldout items so far, per label and kind and per label: a kind even, the label decides.
        balance: dict[tuple[str, ...], int] = {}
        split_of: dict[int, str] = {}
        for i in order:
            label, family, items = fams[i]
            kind, whole = (label, family.split(".")[0]), (label,)
            lean = balance.get(kind, 0) or balance.get(whole, 0)
            split_of[i] = "dev" if lean <= 0 else "heldout"
            for key in (kind, whole):
                balance[key] = balance.get(key, 0) + (len(items) if split_of[i] == "dev" else -len(items))
        counters = {"harmful": 0, "benign": 0}
        for i, (label, family, items) in enumerate(fams):
            for shape, text in items:
                counters[label] += 1
                records.append({"id": f"{language}-{label}-{JUDGE_CATEGORY}-{counters[label]:03d}", "text": text,
                                "label": label, "category": JUDGE_CATEGORY, "language": language, "shape": shape,
                                "family": f"{language}/{label}/{JUDGE_CATEGORY}/{family}", "split": split_of[i],
                                "written": "before_tuning"})
    return records


def main(argv: list[str] | None = None) -> int:
    """Write the corpus and print its counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    records = build()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    for label in ("harmful", "benign"):
        chosen = [r for r in records if r["label"] == label and r["category"] != JUDGE_CATEGORY]
        by = {(r["language"], r["category"]): 0 for r in chosen}
        for r in chosen:
            by[(r["language"], r["category"])] += 1
        print(f"{label}: {len(chosen)} ({sum(r['split'] == 'dev' for r in chosen)} dev)", dict(sorted(by.items())))
    judged = [r for r in records if r["category"] == JUDGE_CATEGORY]
    aimed, negatives = (sum(r["label"] == label for r in judged) for label in ("harmful", "benign"))
    print(f"{JUDGE_CATEGORY}: {aimed} aimed and {negatives} hard negatives "
          f"({sum(r['split'] == 'dev' for r in judged)} dev)")
    print(f"wrote {len(records)} records to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
