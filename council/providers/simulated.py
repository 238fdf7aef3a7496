"""Built-in simulated members: offline, deterministic, and labelled as such.

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

import asyncio
import hashlib
import json
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from council.config import MemberConfig, SimulatedPersona
from council.evals.prompt import EvaluationTask, read_evaluation_task
from council.providers.base import Provider, Reply, StreamDecoder
from council.review.prompt import ReviewTask, read_review_task
from council.transport.http import HttpRequest
from council.types import ChatMessage, Completion, GenerationParams, Usage

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
    "you",
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
_CHAIRMAN_OPENING = "You are the chairman of a council"
_ANSWER_BLOCK = re.compile(r'<<answer rank="(\d+)"[^\n]*nonce="([0-9a-f]+)">>\n(.*?)\n<</answer nonce="\2">>', re.S)


def judge_quality(text: str) -> tuple[float, int]:
    """What a simulated reviewer reads in an answer: the share of sound points, and the point count."""
    sound = sum(text.count(mark) for mark in _SOUND_MARKS)
    weak = sum(text.count(mark) for mark in _WEAK_MARKS)
    points = sound + weak
    return (sound / points if points else 0.3), points


def _as_hint(hint: str, felt: float) -> object:
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
            scores[dimension] = _as_hint(task.hints.get(dimension, "1-10"), felt_scores[-1])
        means[candidate.label] = sum(felt_scores) / max(len(felt_scores), 1)
        verdict = "solid and specific" if quality >= 0.7 else "partly vague" if quality >= 0.4 else "mostly filler"
        evaluations[candidate.label] = {**scores, "overall": round(means[candidate.label], 1),
                                        "notes": f"{points} points, {verdict}."}
    ranking = sorted(means, key=lambda label: (-means[label], label))
    critique = " ".join(f"{label}: {evaluations[label]['notes']}" for label in ranking)
    ballot = json.dumps({"ranking": ranking, "evaluations": evaluations})
    return f"{critique}\n\n<verdict nonce=\"{task.nonce}\">{ballot}</verdict>"


def write_synthesis(messages: list[ChatMessage]) -> str | None:
    """A simulated chairman's final answer: the top-ranked answer, lightly edited; None if not a chairman prompt."""
    if not messages or messages[0].role != "system" or not messages[0].content.startswith(_CHAIRMAN_OPENING):
        return None
    blocks = sorted((int(rank), body) for rank, _nonce, body in _ANSWER_BLOCK.findall(messages[-1].content))
    if not blocks:
        return "The council's answers could not be read."
    best = blocks[0][1].strip()
    extra = ""
    if len(blocks) > 1:
        sentences = [part.strip(" -") for part in re.split(r"(?<=\.)\s+|\n+", blocks[1][1])]
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


def _count_tokens(text: str) -> int:
    return max(1, len(text.split()))


class SimulatedProvider(Provider):
    """A member that answers from its persona without any network call.

    Its generation params: ``max_tokens`` cuts the answer (in words) and
    ``stop`` ends it before the first stop sequence, both with the finish
    reason a real model gives. It has no sampler, so the sampling settings
    (``temperature``, ``top_p``, ``seed``, the penalties, ``reasoning_effort``)
    are honoured trivially: the answer is the same whatever they are, which
    is what a deterministic model promises. ``user`` tags nothing, since it
    keeps no logs. A JSON ``response_format`` is refused: it writes prose and
    would not keep that promise.
    """

    name = "simulated"
    simulated = True
    supported_params = frozenset(GenerationParams.model_fields) - {"response_format"}

    def __init__(self, member: MemberConfig, **kwargs: Any) -> None:
        super().__init__(member, **kwargs)
        self.persona = persona_for(member)

    def respond(self, messages: list[ChatMessage]) -> str:
        """The text this member writes for ``messages``: a review, an evaluation, a synthesis or an answer."""
        task = read_review_task(messages)
        if task is not None:
            return write_review(self.persona, task, self.member.name)
        evaluation = read_evaluation_task(messages)
        if evaluation is not None:
            return write_evaluation(self.persona, evaluation, self.member.name)
        synthesis = write_synthesis(messages)
        if synthesis is not None:
            return synthesis
        return write_answer(self.persona, messages, self.member.name)

    def _reply(self, messages: list[ChatMessage], params: GenerationParams) -> Reply:
        self.check_params(params)
        text = self.respond(messages)
        finish = "stop"
        if params.stop:
            cuts = [text.find(stop) for stop in params.stop if stop and stop in text]
            if cuts:
                text = text[: min(cuts)]
        if params.max_tokens is not None:
            words = text.split(" ")
            if len(words) > params.max_tokens:
                text, finish = " ".join(words[: params.max_tokens]), "length"
        usage = Usage(
            prompt_tokens=sum(_count_tokens(m.content) for m in messages), completion_tokens=_count_tokens(text)
        )
        return Reply(text, finish, usage, f"simulated/{self.member.model}")

    async def _pause(self) -> None:
        if self.persona.latency_ms > 0:
            await asyncio.sleep(self.persona.latency_ms / 1000)

    async def complete(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> Completion:
        started = time.perf_counter()
        await self._pause()
        return self._completion(self._reply(messages, self.member.params.merged(params)), started, 1)

    def stream(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> SimulatedStream:  # type: ignore[override]
        return SimulatedStream(self, messages, self.member.params.merged(params))

    def build_request(self, messages: list[ChatMessage], params: GenerationParams, *, stream: bool) -> HttpRequest:
        raise NotImplementedError("simulated members make no HTTP request")

    def parse_response(self, data: dict[str, Any]) -> Reply:
        raise NotImplementedError("simulated members make no HTTP request")

    def stream_decoder(self) -> StreamDecoder:
        raise NotImplementedError("simulated members make no HTTP request")


class SimulatedStream:
    """The simulated answer delivered a few words at a time, like a real stream."""

    def __init__(self, provider: SimulatedProvider, messages: list[ChatMessage], params: GenerationParams) -> None:
        self._provider = provider
        self._messages = messages
        self._params = params
        self.completion: Completion | None = None

    async def __aenter__(self) -> SimulatedStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def aclose(self) -> None:
        """Nothing to release."""

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        started = time.perf_counter()
        await self._provider._pause()
        reply = self._provider._reply(self._messages, self._params)
        words = reply.content.split(" ")
        for index in range(0, len(words), 4):
            yield (" " if index else "") + " ".join(words[index : index + 4])
        self.completion = self._provider._completion(reply, started, 1)

    async def collect(self) -> Completion:
        """Read the whole stream and return the finished completion."""
        async for _ in self:
            pass
        assert self.completion is not None
        return self.completion
