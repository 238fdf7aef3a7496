"""Simulated members: personas that answer, review, judge and chair offline, deterministically.

They let anyone try Council with no key, and serve tests and benchmarks.
Each member gets a persona derived from its name (or set in its config): a
hidden answer quality, a length and a layout, and, as a reviewer, its own
calibration (lenient or harsh, wide or narrow, noisy or steady).

Quality is visible in the text itself: an answer is a set of points, each
either *sound* (a definite, checkable statement) or *weak* (hedged filler),
and better personas write more sound points. A simulated reviewer therefore
judges what it reads, as a real one would, rather than peeking at a label.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, replace

from council.config import MemberConfig, SimulatedPersona
from council.review.chairman import ChairmanTask
from council.review.evaluation import EvaluationTask
from council.review.flags import ADDRESSES_KEY, HARM_CATEGORIES, HARMFUL_KEY
from council.review.prompt import ReviewTask
from council.review.revision import RevisionTask
from council.safety import find_manipulation, harm_topics
from council.types import ChatMessage

SOUND_POINTS = (
    "The core mechanism behind {topic} is well established and can be stated precisely.",
    "A concrete example makes {topic} easy to check against known cases.",
    "The main trade-off in {topic} is between cost and accuracy, and it can be quantified.",
    "Measured results on {topic} agree across independent sources.",
    "The usual mistake with {topic} is confusing correlation with cause; the evidence separates them.",
    "A simple test confirms the explanation of {topic} directly.",
    "The limits of {topic} are known: it fails outside its stated assumptions.",
    "Step by step, {topic} follows from a small number of definitions.",
)
WEAK_POINTS = (
    "Some people say {topic} might depend on many things.",
    "It is probably fair to say {topic} is complicated in general.",
    "There may be other views on {topic} that could matter somewhat.",
    "Perhaps {topic} is sometimes different, depending on the situation.",
)
_FILLER = frozenset((
    "why", "what", "how", "when", "where", "who", "which", "whom", "whose", "is", "are", "was", "were", "do", "does",
    "did", "can", "could", "should", "would", "will", "please", "explain", "describe", "tell", "me", "us", "i",
    "you", "and", "but", "so", "then", "also", "now", "ok", "okay", "thanks",
))
_LENGTHS = {"terse": 3, "balanced": 5, "verbose": 8}


@dataclass(frozen=True)
class Persona:
    """The fixed traits of one simulated member."""

    quality: float
    verbosity: str
    style: str
    leniency: float
    spread: float
    noise: float
    latency_ms: float
    #: In a second round, how far a revision moves toward the best-critiqued answer's quality (0: never).
    uptake: float = 0.0
    #: As a reviewer asked for flags: how often it flags an answer that goes along with a harmful request, or
    #: that addresses the reviewers; and how often it flags one that does neither.
    harm_sensitivity: float = 0.9
    false_flag_rate: float = 0.0


def persona_for(member: MemberConfig) -> Persona:
    """The member's persona: derived from its name and model, then config overrides."""
    rng = random.Random(hashlib.sha256(f"{member.name}/{member.model}".encode()).digest())
    derived = {
        "quality": round(rng.uniform(0.35, 0.95), 3),
        "verbosity": rng.choice(("terse", "balanced", "verbose")),
        "style": rng.choice(("plain", "bulleted", "formal")),
        "leniency": round(rng.uniform(-1.5, 1.5), 3),
        "spread": round(rng.uniform(0.6, 1.4), 3),
        "noise": round(rng.uniform(0.2, 0.9), 3),
        "latency_ms": 0.0,
        # Drawn last, so the traits above stay what they were before revisions existed. A quarter never improve.
        "uptake": 0.0 if rng.random() < 0.25 else round(rng.uniform(0.2, 0.9), 3),
        # Drawn after the rest for the same reason. No false flags unless a config asks for them.
        "harm_sensitivity": round(rng.uniform(0.75, 0.98), 3),
    }
    overrides = (member.persona or SimulatedPersona()).model_dump(exclude_none=True)
    return Persona(**{**derived, **overrides})


def topic_of(messages: list[ChatMessage]) -> str:
    """A short phrase naming what the last user turn asks about."""
    last = next((m.content for m in reversed(messages) if m.role == "user"), "")
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", last)]
    while words and words[0] in _FILLER:
        words.pop(0)
    return " ".join(words[:8]) or "the question"


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def write_answer(persona: Persona, messages: list[ChatMessage], member: str) -> str:
    """The deterministic answer of ``persona`` to the conversation."""
    topic = topic_of(messages)
    rng = random.Random(_seed(member, *(m.content for m in messages)))
    count = _LENGTHS[persona.verbosity]
    sound_count = max(0, min(count, round(count * persona.quality + rng.uniform(-0.5, 0.5))))
    points = rng.sample(SOUND_POINTS, k=min(sound_count, len(SOUND_POINTS)))
    points += [rng.choice(WEAK_POINTS) for _ in range(count - len(points))]
    rng.shuffle(points)
    lines = [p.format(topic=topic) for p in points]
    opening = f"On {topic}:"
    if persona.style == "bulleted":
        return opening + "\n\n" + "\n".join(f"- {line}" for line in lines)
    if persona.style == "formal":
        return f"Regarding {topic}, the considered answer is as follows.\n\n" + " ".join(lines)
    return opening + " " + " ".join(lines)


_SOUND_MARKS = tuple(t.split("{topic}")[-1].strip(" .") for t in SOUND_POINTS)
_WEAK_MARKS = tuple(t.split("{topic}")[-1].strip(" .") for t in WEAK_POINTS)


def judge_quality(text: str) -> tuple[float, int]:
    """What a simulated reviewer reads in an answer: the share of sound points, and the point count."""
    sound = sum(text.count(mark) for mark in _SOUND_MARKS)
    weak = sum(text.count(mark) for mark in _WEAK_MARKS)
    points = sound + weak
    return (sound / points if points else 0.3), points


def score_as_hint(hint: str, felt: float) -> object:
    """A felt 1-10 score expressed the way the ballot key asks: a scale number, a bool or a level id."""
    if hint == "true/false":
        return felt >= 6
    if hint.startswith("level:"):
        levels = [level.strip() for level in hint.removeprefix("level:").split("|") if level.strip()]
        return levels[min(len(levels) - 1, int((felt - 1) / 9 * len(levels)))] if levels else ""
    low, _, high = hint.partition("-")
    try:
        lo, hi = int(low), int(high)
    except ValueError:
        lo, hi = 1, 10
    return round(lo + (felt - 1) / 9 * (hi - lo))


def write_review(persona: Persona, task: ReviewTask, member: str) -> str:
    """A simulated reviewer's critique and verdict, in its own calibration."""
    rng = random.Random(_seed(member, task.nonce))
    evaluations: dict[str, dict[str, object]] = {}
    means: dict[str, float] = {}
    for candidate in task.candidates:
        quality, points = judge_quality(candidate.text)
        base = 1 + 9 * quality
        intended = {
            "accuracy": base,
            "relevance": min(10.0, base + 1),
            "completeness": 1 + 9 * quality * min(points, 6) / 6,
            "conciseness": 9 - 0.6 * max(points - 4, 0) - 2 * (1 - quality),
            "clarity": base + 0.5,
        }
        scores: dict[str, object] = {}
        felt_scores = []
        for dimension in task.dimension_ids:
            raw = intended.get(dimension, base)
            felt = 5.5 + persona.spread * (raw - 5.5) + persona.leniency + rng.gauss(0, persona.noise)
            felt_scores.append(min(10.0, max(1.0, felt)))
            scores[dimension] = score_as_hint(task.hints.get(dimension, "1-10"), felt_scores[-1])
        means[candidate.label] = sum(felt_scores) / max(len(felt_scores), 1)
        verdict = "solid and specific" if quality >= 0.7 else "partly vague" if quality >= 0.4 else "mostly filler"
        evaluations[candidate.label] = {**scores, "overall": round(means[candidate.label], 1),
                                        "notes": f"{points} points, {verdict}."}
        if task.asks_flags:
            evaluations[candidate.label].update(read_flags_as(persona, candidate.text, member, task.nonce))
    ranking = sorted(means, key=lambda label: (-means[label], label))
    critique = " ".join(f"{label}: {evaluations[label]['notes']}" for label in ranking)
    ballot = json.dumps({"ranking": ranking, "evaluations": evaluations})
    return f"{critique}\n\n<verdict nonce=\"{task.nonce}\">{ballot}</verdict>"


def read_flags_as(persona: Persona, text: str, member: str, nonce: str) -> dict[str, object]:
    """What a simulated reviewer flags in one answer: what it notices, by its sensitivity and false-flag rate.

    It notices an answer about a harm topic (:func:`council.safety.harm_topics`: the simulated members
    go along with whatever is asked) and text aimed at the reviewers (the gate's own rules). Drawn from
    a generator of its own, so that the scores are what they were before reviewers flagged anything.
    """
    rng = random.Random(_seed(member, nonce, text, "flags"))
    topics = harm_topics(text)
    if topics and rng.random() < persona.harm_sensitivity:
        harmful = topics[0]
    elif not topics and rng.random() < persona.false_flag_rate:
        harmful = HARM_CATEGORIES[0]
    else:
        harmful = "no"
    aimed = bool(find_manipulation(text))
    addresses = rng.random() < (persona.harm_sensitivity if aimed else persona.false_flag_rate)
    return {HARMFUL_KEY: harmful, ADDRESSES_KEY: addresses}


def write_synthesis(task: ChairmanTask) -> str:
    """A simulated chairman's final answer: the top-ranked answer, with one sound point the second adds."""
    if not task.answers:
        return "The council's answers could not be read."
    best = task.answers[0].strip()
    extra = ""
    if len(task.answers) > 1:
        sentences = [part.strip(" -") for part in re.split(r"(?<=\.)\s+|\n+", task.answers[1])]
        novel = [part for part in sentences if any(m in part for m in _SOUND_MARKS) and part not in best]
        if novel:
            extra = "\n\nAlso worth adding: " + novel[0]
    return f"{best}{extra}"


_UNINFORMATIVE = _FILLER | frozenset((
    "the", "a", "an", "of", "and", "or", "to", "in", "on", "at", "by", "for", "with", "from", "as", "it", "its",
    "that", "this", "be",
))


def _key_words(text: str) -> set[str]:
    return {
        w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _UNINFORMATIVE and (len(w) > 2 or w.isdigit())
    }


def write_evaluation(persona: Persona, task: EvaluationTask, member: str) -> str:
    """A simulated evaluator's strict-JSON verdict on a candidate answer.

    It reads what a simulated reviewer reads, the share of sound points, and
    how many of the reference answer's key words the candidate contains;
    accuracy follows the better of the two, faithfulness the soundness (or
    the overlap, for text without recognizable points). Its leniency shifts
    both and its noise jitters them, deterministically per candidate.
    """
    rng = random.Random(_seed(member, task.candidate_answer, task.reference_answer or ""))
    quality, points = judge_quality(task.candidate_answer)
    reference = _key_words(task.reference_answer or "")
    overlap = len(reference & _key_words(task.candidate_answer)) / len(reference) if reference else None
    signals = [s for s in (quality if points else None, overlap) if s is not None]
    accuracy = max(signals) if signals else 0.5
    faithfulness = quality if points else (overlap if overlap is not None else 0.5)

    def score(signal: float) -> int:
        felt = signal + 0.1 * persona.leniency + rng.gauss(0, 0.05 * persona.noise)
        return 2 if felt >= 0.7 else 1 if felt >= 0.4 else 0

    read = f"{points} points, {round(100 * quality)}% of them sound" if points else "no recognizable points"
    matched = f"{round(100 * overlap)}% of the reference's key words present" if overlap is not None else "no reference"
    return json.dumps({"accuracy_score": score(accuracy), "faithfulness_score": score(faithfulness),
                       "rationale": f"{read}; {matched}."})


def write_revision(persona: Persona, task: RevisionTask, member: str) -> str:
    """A simulated member's second look: move toward the best-critiqued answer by its uptake, or keep its own.

    The best-critiqued answer is the one the critiques score highest on
    average; the member's revised quality moves from its own answer's
    (read as a reviewer reads it) toward that answer's by ``persona.uptake``.
    A member whose answer the critiques rate best, or with no uptake, keeps it.
    """
    def mean_overall(label: str) -> float:
        scores = [c.overall for c in task.critiques.get(label, []) if c.overall is not None]
        return sum(scores) / len(scores) if scores else float("-inf")

    best = max(task.answers, key=lambda label: (mean_overall(label), label == task.own_label))
    own_quality, _ = judge_quality(task.answers[task.own_label])
    best_quality, _ = judge_quality(task.answers[best])
    if best == task.own_label or best_quality <= own_quality or persona.uptake <= 0:
        why = ("the critiques rate my answer best" if best == task.own_label else
               "the critiques do not show a better answer" if best_quality <= own_quality else
               "I stand by my answer")
        return f'<revision nonce="{task.nonce}">{json.dumps({"decision": "keep", "reason": why})}</revision>'
    revised_quality = own_quality + persona.uptake * (best_quality - own_quality)
    text = write_answer(replace(persona, quality=revised_quality), task.question, f"{member}/revised")
    reason = f"{best} covers points mine missed; I added the ones I can stand behind"
    return f'<revision nonce="{task.nonce}">{json.dumps({"decision": "revise", "reason": reason})}</revision>\n\n{text}'
