"""Structured-output benchmark (issue 42, point 6): valid-output rates, cost against one member, latency.

Every question is asked of the council with a schema (``Council.ask(question,
output_type=...)``), alternating between two: a flat object (a pydantic
model) and a nested one with arrays, enums and a sub-object (a JSON Schema).
Two setups:

- ``simulated``: the shipped simulated council (``config/simulated.yaml``,
  four simulated members, atlas in the chair), as a new user gets it.
- ``fake``: four members on the fake upstream, in this process, one per wire
  format and a second OpenAI one: alpha (openai, the chairman), beta
  (anthropic: the schema in its prompt), gamma (gemini: the schema in
  ``generationConfig``) and delta (openai). The fake answers each request
  with a valid instance of the schema it finds in the request, except that
  a member's first answer is invalid (prose, truncated JSON, a required key
  missing, a value of the wrong type) with probability ``--invalid-rate``,
  its retry is valid with probability ``--retry-fixes``, and on a share
  ``--hard-rate`` of the questions every member answers invalid JSON twice.
  The chairman's object fails the same way. Reviews are honest ballots.
  Every draw is seeded by (seed, model, question, attempt), so a run is
  repeatable whatever order the calls arrive in.

After the council, each member is asked the same question alone (one call,
and one retry quoting the error, as the council asks it; on the fake, with
the same draws), for the cost of a single member. Calls and tokens are
counted as the upstream served them (the fake's word counts, the simulated
members' usage), not as the run records them. Questions are asked one at a
time, so latency is a question's wall time with nothing else running.

    .venv/bin/python scripts/bench_structured.py [--questions 50] [--setups simulated,fake] [--invalid-rate 0.3]
        [--retry-fixes 0.5] [--hard-rate 0.06] [--latency-ms 200] [--quorum N] [--seed 42] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field

from council import Council
from council.config import CouncilConfig, load_config, simulated_config_path
from council.pipeline.structured import RETRY_NOTE, OutputSpec, ask_structured, structured_request
from council.providers.simulated import SimulatedProvider
from council.review.prompt import read_review_task
from council.simulation.honest import honest_ballot
from council.simulation.instances import instance_of
from council.testing.fake_llm import FakeLLMServer, RecordedRequest
from council.testing.scripted import is_chairman_prompt, request_messages
from council.types import ChatMessage, Completion, GenerationParams


class City(BaseModel):
    """The flat schema: a few scalars."""

    name: str
    country: str
    population: int = Field(ge=0)
    coastal: bool


ORDER: dict[str, Any] = {  # the nested schema, as a hand-written JSON Schema
    "type": "object",
    "properties": {
        "customer": {"type": "object", "properties": {"name": {"type": "string"},
                                                       "tier": {"enum": ["basic", "plus", "pro"]}},
                     "required": ["name", "tier"], "additionalProperties": False},
        "status": {"enum": ["draft", "review", "final"]},
        "lines": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
            "type": "object",
            "properties": {"sku": {"type": "string", "minLength": 3}, "quantity": {"type": "integer", "minimum": 1},
                           "tags": {"type": "array", "items": {"enum": ["fragile", "cold", "bulk", "gift"]}}},
            "required": ["sku", "quantity", "tags"], "additionalProperties": False}},
        "total": {"type": "number", "minimum": 0},
    },
    "required": ["customer", "status", "lines", "total"],
    "additionalProperties": False,
}

SCHEMAS: list[tuple[str, type[BaseModel] | dict[str, Any], str]] = [
    ("flat", City, "Name a large city and say a few things about it."),
    ("nested", ORDER, "Write up an order for a small bakery: the customer, its lines and the total."),
]
FAKE_MEMBERS = (("alpha", "openai"), ("beta", "anthropic"), ("gamma", "gemini"), ("delta", "openai"))
TAG = re.compile(r"\[(council|single):(\d+)\]")
RETRY = RETRY_NOTE  # how ask_structured's retry ends
PROMPTED = "validates against this JSON Schema"  # OutputSpec.instruction, for members asked in the prompt


# -- counting what the upstream served -------------------------------------------------------------

@dataclass
class Served:
    """Calls and tokens the upstream served, per (council or single, question, model)."""

    calls: dict[tuple[str, int, str], int] = field(default_factory=lambda: defaultdict(int))
    tokens: dict[tuple[str, int, str], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, text: str, model: str, tokens: int) -> None:
        found = TAG.search(text)
        if found is None:
            return  # a warm-up
        key = (found.group(1), int(found.group(2)), model)
        self.calls[key] += 1
        self.tokens[key] += tokens

    def of(self, tag: str, question: int, model: str | None = None) -> tuple[int, int]:
        keys = [k for k in self.calls if k[0] == tag and k[1] == question and (model is None or k[2] == model)]
        return sum(self.calls[k] for k in keys), sum(self.tokens[k] for k in keys)


def count_simulated_calls(served: Served) -> None:
    """Count every simulated member's call (answers, reviews, chairman) as it is made: wraps its reply."""
    original = SimulatedProvider._reply

    async def counted(self: SimulatedProvider, messages: list[ChatMessage], params: GenerationParams) -> Any:
        reply = await original(self, messages, params)
        served.add("\n".join(m.content for m in messages), self.member.model, reply.usage.total_tokens)
        return reply

    SimulatedProvider._reply = counted  # type: ignore[method-assign]


# -- the fake upstream's members ---------------------------------------------------------------------

@dataclass(frozen=True)
class Draws:
    """How often the fake's members answer invalid JSON, and the seed of every draw."""

    invalid_rate: dict[str, float]
    retry_fixes: float
    hard_rate: float
    seed: int

    def invalid(self, model: str, question: int, kind: str, attempt: int) -> bool:
        if kind == "answer" and random.Random(f"{self.seed}:hard:{question}").random() < self.hard_rate:
            return True
        rate = self.invalid_rate[model] if attempt == 1 else 1 - self.retry_fixes
        return random.Random(f"{self.seed}:{model}:{question}:{kind}:{attempt}").random() < rate


def asked_schema(request: RecordedRequest) -> dict[str, Any] | None:
    """The JSON Schema a request asks for: natively (OpenAI, Gemini) or written in the prompt (Anthropic)."""
    body = request.body
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return dict(response_format["json_schema"]["schema"])
    generation = body.get("generationConfig") or {}
    for key in ("responseJsonSchema", "responseSchema"):
        if isinstance(generation.get(key), dict):
            return dict(generation[key])
    decoder = json.JSONDecoder()
    for message in reversed(request.messages):  # a retry's last message quotes the error, not the schema
        at = message["content"].find(PROMPTED)
        if at != -1:
            start = message["content"].find("{", at)
            value, _end = decoder.raw_decode(message["content"], start)
            return dict(value)
    return None


def broken(schema: dict[str, Any], value: Any, rng: random.Random) -> str:
    """An answer that is not valid for ``schema``: prose, cut JSON, a required key missing, or a wrong type."""
    kind = rng.choice(("prose", "truncated", "missing", "wrong type"))
    text = json.dumps(value)
    if kind == "truncated":
        return text[: len(text) // 2]
    if kind in ("missing", "wrong type") and isinstance(value, dict) and value:
        value = dict(value)
        required = [k for k in schema.get("required", []) if k in value]
        if kind == "missing" and required:
            del value[rng.choice(required)]
        else:
            key = rng.choice(sorted(value))
            value[key] = 12345 if isinstance(value[key], str) else "not this" if not isinstance(value[key], list) \
                else {"unexpected": True}
        text = json.dumps(value)
        if not Draft202012Validator(schema).is_valid(value):
            return text
    return "Here is what I found: " + " ".join(str(v) for v in (value.values() if isinstance(value, dict) else [value]))


def fake_member(draws: Draws) -> Any:
    """The fake's reply to any request: a ballot to a review, else JSON for the schema asked (or broken JSON)."""

    def judge(text: str) -> int:
        return 3 + sum(text.encode()) % 7

    def reply(request: RecordedRequest) -> str:
        messages = request_messages(request)
        task = read_review_task(messages)
        text = "\n".join(m["content"] for m in request.messages)
        if task is not None:
            written = honest_ballot(task, judge)
        else:
            schema = asked_schema(request)
            found = TAG.search(text)
            question = int(found.group(2)) if found else -1
            kind = "chairman" if is_chairman_prompt(messages) else "answer"
            attempt = 2 if RETRY in request.last_user_text else 1
            value = instance_of(schema, f"{request.model}/{question}/{kind}/{attempt}")
            if schema is not None and draws.invalid(request.model, question, kind, attempt):
                rng = random.Random(f"{draws.seed}:{request.model}:{question}:{kind}:{attempt}:how")
                written = broken(schema, value, rng)
            else:
                written = json.dumps(value)
        # What the fake reports as usage: a token a word, of the messages and of the reply.
        tokens = sum(len(m["content"].split()) for m in request.messages) + len(written.split())
        served.add(text, request.model, tokens)
        return written

    served = Served()
    reply.served = served  # type: ignore[attr-defined]
    return reply


def fake_config(fake: FakeLLMServer) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": provider, "model": f"model-{name}", "base_url": fake.base_url(provider)}
                    for name, provider in FAKE_MEMBERS],
        "chairman": "alpha",
    })


# -- one question -------------------------------------------------------------------------------------

@dataclass
class Alone:
    """One member asked the question alone."""

    first_valid: bool
    valid: bool
    calls: int
    tokens: int
    latency_s: float


@dataclass
class Question:
    """What one question measured."""

    index: int
    schema: str
    members: dict[str, str]  # member: "first" (valid first try), "retry" (valid after retry), else the error kind
    valid: bool  # the council's final answer is one JSON value valid for the schema
    status: str
    final: str  # chairman, fallback (the top-ranked valid candidate) or none
    fallback_reason: str | None
    calls: int
    tokens: int
    recorded_tokens: int  # what the run's own records count (result.total_usage())
    latency_s: float
    alone: dict[str, Alone]


async def ask_alone(council: Council, name: str, spec: OutputSpec, text: str) -> tuple[bool, bool, float]:
    """One member asked for ``spec`` as the council asks it (natively or in the prompt, one retry)."""
    member = council.member(name)
    native = "response_format" not in member.unsupported_params(GenerationParams(response_format={"type":
                                                                                                   "json_object"}))
    messages, params = structured_request(spec, [ChatMessage(role="user", content=text)], None, native)

    async def call(conversation: list[ChatMessage]) -> Completion:
        return await member.complete(conversation, params)

    started = time.perf_counter()
    reply = await ask_structured(spec, messages, call)
    return reply.attempts == 1 and reply.error is None, reply.error is None, time.perf_counter() - started


async def one_question(council: Council, served: Served, models: dict[str, str], index: int) -> Question:
    name, output_type, asked = SCHEMAS[index % len(SCHEMAS)]
    spec = OutputSpec.of(output_type)
    started = time.perf_counter()
    result = await council.ask(f"[council:{index}] {asked}", output_type=output_type)
    latency = time.perf_counter() - started
    final = result.final_answer
    valid = False
    if result.status == "complete" and final is not None and final.content.strip() and not final.blocked:
        valid = spec.read(final.content)[1] is None and result.output is not None
    members = {a.member: ("first" if a.attempts == 1 else "retry") if a.status == "ok"
               else (a.error.reason if a.error else a.status) for a in result.answers}
    source = "none" if final is None or final.source == "none" else "fallback" if final.fallback else final.source
    calls, tokens = served.of("council", index)

    async def alone(member: str) -> tuple[str, Alone]:
        first, ok, seconds = await ask_alone(council, member, spec, f"[single:{index}] {asked}")
        used, spent = served.of("single", index, models[member])
        return member, Alone(first, ok, used, spent, seconds)

    singles = dict(await asyncio.gather(*(alone(m) for m in council.member_names)))
    return Question(index, name, members, valid, result.status, source,
                    final.fallback_reason if final else result.error, calls, tokens,
                    result.total_usage().total_tokens, latency, singles)


# -- the two setups -----------------------------------------------------------------------------------

def with_quorum(config: CouncilConfig, quorum: int | None) -> CouncilConfig:
    if quorum is None:
        return config
    return config.model_copy(update={"stages": config.stages.model_copy(update={"quorum": quorum})})


async def run_simulated(args: argparse.Namespace) -> tuple[CouncilConfig, list[Question]]:
    config = with_quorum(load_config(simulated_config_path(), {}), args.quorum)
    served = Served()
    count_simulated_calls(served)
    models = {m.name: m.model for m in config.members}
    async with Council(config, store=False, environ={}) as council:
        await council.ask("warm-up question?", output_type=City)
        return config, [await one_question(council, served, models, i) for i in range(args.questions)]


async def run_fake(args: argparse.Namespace) -> tuple[CouncilConfig, list[Question]]:
    rates = {f"model-{name}": args.invalid_rate for name, _ in FAKE_MEMBERS}
    for item in args.member_invalid:
        rates[f"model-{item[0]}"] = item[1]
    draws = Draws(rates, args.retry_fixes, args.hard_rate, args.seed)
    async with FakeLLMServer(record=False) as fake:
        fake.default_reply = reply = fake_member(draws)
        fake.default_latency_s = args.latency_ms / 1000
        config = with_quorum(fake_config(fake), args.quorum)
        models = {m.name: m.model for m in config.members}
        async with Council(config, store=False, environ={}) as council:
            await council.ask("warm-up question?", output_type=City)
            questions = [await one_question(council, reply.served, models, i) for i in range(args.questions)]
    return config, questions


# -- the figures --------------------------------------------------------------------------------------

def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def share(count: int, total: int) -> float | None:
    return count / total if total else None


def summary(config: CouncilConfig, questions: list[Question]) -> dict[str, Any]:
    """The setup's figures, as --json prints them."""
    n = len(questions)
    any_valid = [q for q in questions if any(v in ("first", "retry") for v in q.members.values())]
    members: dict[str, Any] = {}
    for member in config.members:
        name = member.name
        outcomes = [q.members.get(name, "missing") for q in questions]
        alone = [q.alone[name] for q in questions]
        members[name] = {
            "wire_format": member.provider,
            "valid_first_try": share(outcomes.count("first"), n),
            "valid_after_retry": share(outcomes.count("first") + outcomes.count("retry"), n),
            "retries_that_fixed": share(outcomes.count("retry"), n - outcomes.count("first")),
            "failures": {k: outcomes.count(k) for k in sorted(set(outcomes) - {"first", "retry"})},
            "alone": {
                "valid_first_try": share(sum(a.first_valid for a in alone), n),
                "valid_after_retry": share(sum(a.valid for a in alone), n),
                "calls_per_question": statistics.mean(a.calls for a in alone),
                "tokens_per_question": statistics.mean(a.tokens for a in alone),
                "latency_median_s": statistics.median(a.latency_s for a in alone),
                "latency_p95_s": p95([a.latency_s for a in alone]),
            },
        }
    single_calls = statistics.mean(m["alone"]["calls_per_question"] for m in members.values())
    single_tokens = statistics.mean(m["alone"]["tokens_per_question"] for m in members.values())
    calls = statistics.mean(q.calls for q in questions)
    tokens = statistics.mean(q.tokens for q in questions)
    return {
        "questions": n,
        "schemas": {name: sum(q.schema == name for q in questions) for name, _, _ in SCHEMAS},
        "chairman": config.chairman,
        "quorum": config.stages.quorum,
        "members": members,
        "council": {
            "valid": share(sum(q.valid for q in questions), n),
            "valid_by_schema": {name: share(sum(q.valid for q in questions if q.schema == name),
                                            sum(q.schema == name for q in questions)) for name, _, _ in SCHEMAS},
            "questions_with_a_valid_member": len(any_valid),
            "valid_given_a_valid_member": share(sum(q.valid for q in any_valid), len(any_valid)),
            "final_by": {kind: sum(q.final == kind for q in questions) for kind in ("chairman", "fallback", "none")},
            "calls_per_question": calls,
            "tokens_per_question": tokens,
            "recorded_tokens_per_question": statistics.mean(q.recorded_tokens for q in questions),
            "latency_median_s": statistics.median(q.latency_s for q in questions),
            "latency_p95_s": p95([q.latency_s for q in questions]),
            "calls_vs_one_member": calls / single_calls,
            "tokens_vs_one_member": tokens / single_tokens,
        },
        "one_member_mean": {"calls_per_question": single_calls, "tokens_per_question": single_tokens},
        "missed": [{"question": q.index, "schema": q.schema, "status": q.status, "members": q.members,
                    "reason": q.fallback_reason} for q in any_valid if not q.valid],
        "fallbacks": [{"question": q.index, "reason": q.fallback_reason} for q in questions if q.final == "fallback"],
    }


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def table(setup: str, figures: dict[str, Any]) -> list[str]:
    council = figures["council"]
    n, with_valid = figures["questions"], council["questions_with_a_valid_member"]
    lines = [f"### {setup}: {n} questions ({', '.join(f'{k} {v}' for k, v in figures['schemas'].items())}), "
             f"chairman {figures['chairman']}, quorum {figures['quorum']}", "",
             "| Who | wire format | valid, first try | valid after retry | calls/question | tokens/question | "
             "latency median | p95 |", "|---|---|---|---|---|---|---|---|"]
    lines.append(f"| **council** | all | | {percent(council['valid'])} | {council['calls_per_question']:.1f} | "
                 f"{council['tokens_per_question']:,.0f} | {council['latency_median_s']:.3f} s | "
                 f"{council['latency_p95_s']:.3f} s |")
    for name, member in figures["members"].items():
        alone = member["alone"]
        lines.append(f"| {name} in the council / alone | {member['wire_format']} | "
                     f"{percent(member['valid_first_try'])} / {percent(alone['valid_first_try'])} | "
                     f"{percent(member['valid_after_retry'])} / {percent(alone['valid_after_retry'])} | "
                     f"{alone['calls_per_question']:.2f} | {alone['tokens_per_question']:,.0f} | "
                     f"{alone['latency_median_s']:.3f} s | {alone['latency_p95_s']:.3f} s |")
    final = council["final_by"]
    lines += ["",
              f"- Questions where at least one member was valid: {with_valid} of {n}; the council's answer was valid "
              f"on {percent(council['valid_given_a_valid_member'])} of them (goal 100%).",
              f"- Final answer by the chairman {final['chairman']}, by the top-ranked valid candidate (chairman's "
              f"object invalid) {final['fallback']}, none {final['none']}.",
              f"- The council costs {council['calls_vs_one_member']:.1f}x the calls and "
              f"{council['tokens_vs_one_member']:.1f}x the tokens of one member asked alone (mean of the members: "
              f"{figures['one_member_mean']['calls_per_question']:.2f} calls, "
              f"{figures['one_member_mean']['tokens_per_question']:,.0f} tokens).",
              "- Retries that fixed an invalid first answer: " + ", ".join(
                  f"{name} {percent(m['retries_that_fixed'])}" for name, m in figures["members"].items()) + "."]
    if abs(council["recorded_tokens_per_question"] - council["tokens_per_question"]) >= 0.5:
        lines.append(f"- The runs' own records (total_usage) count {council['recorded_tokens_per_question']:,.0f} "
                     f"tokens a question where the upstream served {council['tokens_per_question']:,.0f}.")
    for missed in figures["missed"]:
        lines.append(f"- Missed with a valid member: question {missed['question']} ({missed['schema']}), "
                     f"{missed['status']}: {missed['reason']}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50, help="questions per setup, the schemas in turn")
    parser.add_argument("--setups", default="simulated,fake", help="simulated, fake or both (comma-separated)")
    parser.add_argument("--invalid-rate", type=float, default=0.3,
                        help="fake: probability a member's (or the chairman's) first answer is invalid")
    parser.add_argument("--member-invalid", action="append", default=[], metavar="NAME=RATE",
                        type=lambda s: (s.partition("=")[0], float(s.partition("=")[2])),
                        help="fake: another first-answer invalid rate for one member (alpha, beta, gamma, delta)")
    parser.add_argument("--retry-fixes", type=float, default=0.5,
                        help="fake: probability the retry of an invalid answer is valid")
    parser.add_argument("--hard-rate", type=float, default=0.06,
                        help="fake: share of questions on which every member answers invalid JSON twice")
    parser.add_argument("--latency-ms", type=float, default=200, help="fake: milliseconds before every reply")
    parser.add_argument("--quorum", type=int, default=None, help="stages.quorum (default: the config's)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of tables")
    args = parser.parse_args()
    setups = args.setups.split(",")
    if not setups or set(setups) - {"simulated", "fake"}:
        parser.error(f"--setups: expected simulated, fake or both; got {args.setups!r}")
    if args.questions < 1:
        parser.error("--questions at least 1")
    for rate in (args.invalid_rate, args.retry_fixes, args.hard_rate, *(r for _, r in args.member_invalid)):
        if not 0 <= rate <= 1:
            parser.error("rates are between 0 and 1")
    unknown = {name for name, _ in args.member_invalid} - {name for name, _ in FAKE_MEMBERS}
    if unknown:
        parser.error(f"--member-invalid: no fake member {', '.join(sorted(unknown))}")

    figures: dict[str, Any] = {}
    for setup in setups:
        config, questions = asyncio.run(run_simulated(args) if setup == "simulated" else run_fake(args))
        figures[setup] = summary(config, questions)
        figures[setup]["per_question"] = [asdict(q) for q in questions]
    settings = {k: v for k, v in vars(args).items() if k != "json"}
    machine = f"{platform.machine()}, Python {platform.python_version()}"
    if args.json:
        json.dump({"settings": settings, "machine": machine, "setups": figures}, sys.stdout, indent=2)
        print()
        return
    for setup, found in figures.items():
        print("\n".join(table(setup, found)))
        print()
    print(f"Settings: {json.dumps(settings)}; {machine}")


if __name__ == "__main__":
    main()
