"""Council presets: checked with the config, applied by ``Council.ask(preset=...)`` and ``--preset``."""

from __future__ import annotations

import json

import pytest
import yaml

from council import Council, CouncilConfig
from council.cli import main
from council.config import simulated_config_path
from council.errors import InvalidRequestError
from council.result import JudgingRecord
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.storage.test_store import simulated_without_latency


def config_with(councils: dict) -> CouncilConfig:
    raw = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    return CouncilConfig.model_validate({**raw, "councils": councils})


@pytest.mark.parametrize(("councils", "message"), [
    ({"Quick": {}}, "string_pattern_mismatch"),
    ({"quick": {"members": ["atlas", "zephyr"]}}, "councils.quick: unknown members zephyr"),
    ({"quick": {"review": "judge"}}, "review: judge needs judge: MEMBER"),
    ({"quick": {"judge": "atlas"}}, "judge is only used with review: judge"),
    ({"quick": {"review": "judge", "judge": "zephyr"}}, "judge 'zephyr' is not a member"),
    ({"quick": {"chairman": "zephyr"}}, "chairman 'zephyr' is not a member"),
    ({"quick": {"members": ["atlas"]}}, "1 members answer but stages.quorum is 2"),
    ({"quick": {"speed": "fast"}}, "extra_forbidden"),
    ({"quick": {"second_judge": "boreal"}}, "second_judge is only used with review: judge"),
    ({"quick": {"review": "judge", "judge": "atlas", "second_judge": "atlas"}}, "must be another member than judge"),
    ({"quick": {"review": "judge", "judge": "atlas", "second_judge": "zephyr"}}, "second_judge 'zephyr' is not a"),
    ({"quick": {"review": "judge", "judge": "atlas", "second_judge": "boreal", "members": ["boreal", "cirrus"]}},
     "second_judge is only used when the judge answers too"),
])
def test_a_preset_that_does_not_fit_the_council_stops_the_config(councils, message):
    with pytest.raises(ValueError, match=message):
        config_with(councils)


def test_the_shipped_configs_offer_quick_full_and_deliberate():
    for path in (simulated_config_path(), simulated_config_path().with_name("council.yaml")):
        councils = yaml.safe_load(path.read_text())["councils"]
        assert set(councils) == {"quick", "full", "deliberate"} and councils["quick"]["review"] == "judge", path
        assert councils["deliberate"]["rounds"] == 2 and "rounds" not in councils["full"], path


async def test_a_preset_chooses_members_chairman_and_review_and_the_result_says_so():
    config = config_with({"quick": {"chairman": "none", "review": "judge", "judge": "delta"},
                          "trio": {"members": ["atlas", "boreal", "cirrus"], "chairman": "boreal"}})
    async with Council(config, store=False) as council:
        quick = await council.ask("Why is the sky blue?", preset="quick")
        trio = await council.ask("Why is the sky blue?", preset="trio")
        overridden = await council.ask("Why is the sky blue?", preset="trio", chairman=None, members=["atlas", "delta"])
        plain = await council.ask("Why is the sky blue?")
        with pytest.raises(InvalidRequestError, match="unknown preset 'slow'; presets: quick, trio"):
            await council.ask("Why?", preset="slow")
    assert quick.preset == "quick" and {r.reviewer: sorted(r.scores) for r in quick.reviews} == {
        "delta": ["atlas", "boreal", "cirrus"], "atlas": ["boreal", "cirrus", "delta"]}, \
        "the judge scores every answer but its own; the first other member scores every answer but its own"
    assert quick.judging == JudgingRecord(policy="second_judge", judge="delta", second_judge="atlas")
    assert {e.member: e.n_reviews for e in quick.ranking} == {"atlas": 1, "boreal": 2, "cirrus": 2, "delta": 1}
    assert quick.final_answer.source == "top_answer"
    assert trio.preset == "trio" and [a.member for a in trio.answers] == ["atlas", "boreal", "cirrus"]
    assert trio.judging is None and plain.judging is None, "peer review has no judging policy"
    assert trio.final_answer.by == "boreal" and len(trio.reviews) == 3
    assert [a.member for a in overridden.answers] == ["atlas", "delta"] and overridden.final_answer.source != "chairman"
    assert plain.preset is None and len(plain.reviews) == 4 and plain.final_answer.by == "atlas"


def test_the_cli_runs_a_preset(tmp_path, capsys):
    config = tmp_path / "council.yaml"
    raw = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    raw["councils"] = {"quick": {"chairman": "none", "review": "judge", "judge": "atlas"}}
    config.write_text(yaml.safe_dump(raw))
    environ = {"COUNCIL_DB_PATH": str(tmp_path / "council.db")}
    assert main(["ask", "Why?", "--config", str(config), "--preset", "quick", "--json", "--quiet"], environ) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["preset"] == "quick" and [r["reviewer"] for r in result["reviews"]] == ["atlas", "boreal"]
    assert result["judging"] == {"policy": "second_judge", "judge": "atlas", "second_judge": "boreal"}
    assert main(["ask", "Why?", "--config", str(config), "--preset", "quick", "--quiet"], environ) == 0
    assert "(preset quick; judge atlas, its answer scored by boreal)" in capsys.readouterr().out
    assert main(["ask", "Why?", "--config", str(config), "--preset", "slow", "--quiet"], environ) == 2
    assert "unknown preset 'slow'; presets: quick" in capsys.readouterr().err


SHIPPED_QUALITY = {"atlas": 2, "boreal": 8, "cirrus": 6, "delta": 4}


def shipped_council_on(fake: FakeLLMServer) -> CouncilConfig:
    """The shipped simulated config (its members' names, its presets as shipped), each member a scripted model.

    The quick preset's judge, atlas, writes the weakest answer and, as a reviewer, gives its own answer full
    marks (self-preference); the others score every answer by the ``quality=N`` it carries.
    """
    raw = yaml.safe_load(simulated_config_path().read_text())
    raw["members"] = [{"name": name, "provider": "openai", "model": f"model-{name}",
                       "base_url": fake.base_url("openai")} for name in SHIPPED_QUALITY]
    raw["retry"] = {"max_attempts": 1}

    def by_quality(text: str) -> int:
        return int(text.rsplit("quality=", 1)[1][:1])

    def self_preferring(text: str) -> int:
        return 10 if text.startswith("atlas") else by_quality(text)

    for name, quality in SHIPPED_QUALITY.items():
        fake.script(f"model-{name}", Step(reply=council_member(
            f"{name} says 42. quality={quality}", self_preferring if name == "atlas" else by_quality)))
    return CouncilConfig.model_validate(raw)


async def test_the_shipped_quick_judge_does_not_rank_its_own_answer_by_its_own_score(fake_llm):
    config = shipped_council_on(fake_llm)
    assert config.councils["quick"].judge == "atlas", "the shipped quick preset is the one under test"
    async with Council(config, store=False, environ={}) as council:
        result = await council.ask("What is six times seven?", preset="quick")
    assert result.status == "complete", result.degraded_reasons
    assert all("atlas" not in review.scores for review in result.reviews if review.reviewer == "atlas"), \
        "the judge does not score its own answer"
    ranked = [entry.member for entry in result.ranking]
    assert ranked[0] == "boreal" and ranked[-1] == "atlas", ranked
    assert result.judging == JudgingRecord(policy="second_judge", judge="atlas", second_judge="boreal")
    assert [r.reviewer for r in result.reviews] == ["atlas", "boreal"], "two review calls, not one per member"


async def test_a_judge_left_out_of_the_members_scores_every_answer_alone(fake_llm):
    config = shipped_council_on(fake_llm)
    others = ["boreal", "cirrus", "delta"]
    async with Council(config, store=False, environ={}) as council:
        chosen = await council.ask("What is six times seven?", preset="quick", members=others)
    assert [a.member for a in chosen.answers] == others and chosen.judging == JudgingRecord(
        policy="judge_does_not_answer", judge="atlas")
    assert [(r.reviewer, sorted(r.scores)) for r in chosen.reviews] == [("atlas", others)]
    assert [e.member for e in chosen.ranking] == others and all(e.n_reviews == 1 for e in chosen.ranking)
    assert len(fake_llm.requests_for("model-atlas")) == 1, "the judge only judges"


async def test_the_second_judge_can_be_named_and_the_stored_run_keeps_the_policy(tmp_path):
    config = config_with({"judged": {"chairman": "none", "review": "judge", "judge": "boreal",
                                     "second_judge": "delta"}})
    store = Store(str(tmp_path / "council.db"))
    try:
        async with Council(config, store=store) as council:
            result = await council.ask("Why is the sky blue?", preset="judged")
        stored = store.get(result.run_id)
    finally:
        store.close()
    assert {r.reviewer: sorted(r.scores) for r in result.reviews} == {
        "boreal": ["atlas", "cirrus", "delta"], "delta": ["atlas", "boreal", "cirrus"]}
    assert stored is not None and stored.judging == result.judging == JudgingRecord(
        policy="second_judge", judge="boreal", second_judge="delta")


async def test_the_deliberate_preset_has_a_second_round_when_unsure_and_says_which():
    config = config_with({"deliberate": {"rounds": 2}})
    unsure = ["How does GPS find position?", "Why does GPS find position?", "How does the heart pump blood?",
              "Why does a vaccine train immunity?", "What is rust prevent data races?",
              "Why does TCP avoid congestion?"]
    async with Council(config, store=False) as council:
        results = [await council.ask(q, preset="deliberate") for q in [*unsure, "How do vaccines work?"]]
        plain = await council.ask("How does GPS find position?")
    for result in results:
        rounds = result.deliberation
        assert rounds is not None and rounds.confidence_before is not None
        unsure_first = rounds.confidence_before < 0.7 or bool(rounds.first_round and rounds.first_round.tied_for_first)
        assert rounds.rounds == (2 if unsure_first else 1), rounds.reason
        assert rounds.reason.startswith("two rounds: " if rounds.rounds == 2 else "one round: ")
        assert (rounds.first_round is not None) == (rounds.rounds == 2)
    assert any(r.deliberation.rounds == 2 for r in results[:-1]), "near-ties among the simulated members deliberate"
    assert results[-1].deliberation.rounds == 1, "a clear winner needs one round"
    assert plain.deliberation is None


async def test_a_judge_preset_can_deliberate_and_its_judges_review_both_rounds():
    config = config_with({"judged": {"review": "judge", "judge": "atlas", "rounds": 2, "deliberate_below": 1.0}})
    async with Council(config, store=False) as council:
        result = await council.ask("How does a bloom filter answer membership?", preset="judged")
    rounds = result.deliberation
    assert rounds is not None and rounds.rounds == 2 and rounds.first_round is not None
    judges = {"atlas", "boreal"}
    assert {r.reviewer for r in result.reviews} == {r.reviewer for r in rounds.first_round.reviews} == judges
    assert sorted(r.member for r in rounds.revisions) == ["atlas", "boreal", "cirrus", "delta"]
