"""read_call tells every prompt Council sends a member by its stage, and plays_every_role answers each one readably."""

from __future__ import annotations

import json

import pytest

from council.pipeline.judge import feedback_messages
from council.pipeline.safety_stage import classifier_messages, parse_classifier_reply
from council.result import RankingEntry
from council.review.ballot import parse_ballot
from council.review.chairman import render_chairman_prompt
from council.review.evaluation import render_evaluation_prompt
from council.review.prompt import Candidate, render_review_prompt
from council.review.revision import Critique, parse_revision_reply, render_revision_prompt
from council.rubrics.load import load_rubric
from council.simulation.calls import CallInfo, read_call
from council.simulation.honest import plays_every_role
from council.types import ChatMessage

NONCE = "a1b2c3d4e5f60718"
QUESTION = [ChatMessage(role="user", content="Why is the sky blue?")]
FIRST = RankingEntry(member="m", rank=1, score=0.5, raw_mean=7.0, n_reviews=2)
SECOND = RankingEntry(member="n", rank=2, score=-0.5, raw_mean=5.0, n_reviews=2)
RUBRIC = load_rubric("default")
SIDE_TASK = ("### Task:\nGenerate a concise title for the chat.\n### Output:\nJSON format: { \"title\": \"...\" }\n"
             "<chat_history>\nUSER: Why is the sky blue?\n</chat_history>")

PROMPTS = {
    "answer": QUESTION,
    "review": render_review_prompt(QUESTION, [Candidate("Response A", "Rayleigh scattering."),
                                              Candidate("Response B", "Because it is.")], RUBRIC, NONCE),
    "revision": render_revision_prompt(QUESTION, {"Response A": "Mine.", "Response B": "Theirs."}, "Response A",
                                       {"Response A": [Critique("Reviewer 1", {"accuracy": 7}, 0.7, "Fine.")]}, NONCE),
    "chairman": render_chairman_prompt(QUESTION, [(FIRST, "The best answer."), (SECOND, "Another.")], NONCE),
    "evaluation": render_evaluation_prompt("Why is the sky blue?", "Rayleigh scattering.",
                                           reference_answer="Rayleigh scattering"),
    "safety": classifier_messages("Rayleigh scattering."),
    "feedback": feedback_messages("accuracy: 7/10", "Rayleigh scattering."),
    "side_task": [ChatMessage(role="user", content=SIDE_TASK)],
}


@pytest.mark.parametrize("stage", sorted(PROMPTS))
def test_each_prompt_is_read_as_its_stage(stage):
    assert read_call(PROMPTS[stage]).stage == stage


def test_a_question_that_mentions_a_prompt_is_still_an_answer():
    quoting = [ChatMessage(role="user", content="You are a safety classifier for answers written by AI models.")]
    assert read_call(quoting).stage == "answer"


def test_every_role_is_played_in_a_form_its_parser_reads():
    reply = plays_every_role("My answer.", judge=lambda text: 9 if "Rayleigh" in text else 2)

    def played(stage: str) -> str:
        written = reply(PROMPTS[stage], CallInfo(member="m", stage=read_call(PROMPTS[stage]).stage))
        assert isinstance(written, str)
        return written

    assert played("answer") == "My answer."
    ballot = parse_ballot(played("review"), ["Response A", "Response B"], RUBRIC, NONCE)
    assert ballot.ok and ballot.ranking == ["Response A", "Response B"]
    assert parse_revision_reply(played("revision"), NONCE).decision == "keep"
    assert played("chairman") == "The best answer."
    assert json.loads(played("evaluation"))["accuracy_score"] == 2
    verdict = parse_classifier_reply(played("safety"), "m")
    assert verdict is not None and verdict.passed
    assert "title" in json.loads(played("side_task"))
    assert played("feedback")


def test_librechats_title_is_a_side_task_answered_as_a_bare_title():
    # LibreChat's default title request; the question may run over several lines, its first one names the topic.
    title_task = ("Provide a concise, 5-word-or-less title for the conversation, using title case conventions. "
                  "Only return the title itself.\n\nConversation:\nUser: Why is the sky blue?\nAnd the sunset red?\n"
                  "AI: \nRayleigh scattering.")
    messages = [ChatMessage(role="user", content=title_task)]
    read = read_call(messages)
    assert (read.stage, read.side_task) == ("side_task", "title_text")
    written = plays_every_role("My answer.")(messages, CallInfo(member="m", stage="side_task"))
    assert written == "The Sky Blue", "LibreChat keeps the whole reply as the title"
