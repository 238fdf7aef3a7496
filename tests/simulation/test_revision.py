"""Simulated members in a second round: they move toward the best-critiqued answer by their own uptake."""

from __future__ import annotations

from council.config import MemberConfig, RetryPolicy, SimulatedPersona
from council.providers.simulated import SimulatedProvider
from council.review.revision import Critique, parse_revision_reply, render_revision_prompt
from council.review.sandbox import new_nonce
from council.simulation import behaviour_for, judge_quality
from council.types import ChatMessage

QUESTION = [ChatMessage(role="user", content="How does a hash map work?")]


def member(name: str, **persona: object) -> SimulatedProvider:
    config = MemberConfig(name=name, provider="simulated", model=f"sim-{name}", persona=SimulatedPersona(**persona))
    return SimulatedProvider(config, behaviour=behaviour_for(config), retry=RetryPolicy(), deadline_s=5)


async def answer_of(provider: SimulatedProvider) -> str:
    return (await provider.complete(QUESTION)).content


async def second_look(provider: SimulatedProvider, own: str, other: str, own_score: float, other_score: float):
    answers = {"Response A": other, "Response B": own}
    critiques = {"Response A": [Critique("Reviewer 1", {"accuracy": 9}, other_score, "Specific.")],
                 "Response B": [Critique("Reviewer 1", {"accuracy": 4}, own_score, "Vague.")]}
    nonce = new_nonce([own, other, "Specific.", "Vague."])
    reply = (await provider.complete(render_revision_prompt(QUESTION, answers, "Response B", critiques, nonce))).content
    return parse_revision_reply(reply, nonce)


async def test_a_weak_member_with_uptake_moves_toward_the_best_critiqued_answer():
    weak = member("weak", quality=0.2, verbosity="verbose", uptake=0.8)
    strong_text = await answer_of(member("strong", quality=1.0, verbosity="verbose"))
    own_text = await answer_of(weak)
    decision = await second_look(weak, own_text, strong_text, 0.3, 0.9)
    assert decision.decision == "revise" and "Response A" in decision.reason
    own, best, revised = (judge_quality(t)[0] for t in (own_text, strong_text, decision.answer))
    assert own < revised <= best, (own, revised, best)
    assert decision.answer == (await second_look(weak, own_text, strong_text, 0.3, 0.9)).answer, "deterministic"


async def test_a_member_without_uptake_never_improves():
    stubborn = member("stubborn", quality=0.2, verbosity="verbose", uptake=0.0)
    strong_text = await answer_of(member("strong", quality=1.0, verbosity="verbose"))
    decision = await second_look(stubborn, await answer_of(stubborn), strong_text, 0.3, 0.9)
    assert decision.decision == "keep" and decision.answer == ""


async def test_a_member_whose_answer_the_critiques_rate_best_keeps_it():
    strong = member("strong", quality=1.0, verbosity="verbose", uptake=0.9)
    weak_text = await answer_of(member("weak", quality=0.2, verbosity="verbose"))
    decision = await second_look(strong, await answer_of(strong), weak_text, 0.9, 0.3)
    assert decision.decision == "keep" and "rate my answer best" in decision.reason
