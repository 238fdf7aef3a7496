"""Council presets: checked with the config, applied by ``Council.ask(preset=...)`` and ``--preset``."""

from __future__ import annotations

import json

import pytest
import yaml

from council import Council, CouncilConfig
from council.cli import main
from council.config import simulated_config_path
from council.errors import InvalidRequest
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
])
def test_a_preset_that_does_not_fit_the_council_stops_the_config(councils, message):
    with pytest.raises(ValueError, match=message):
        config_with(councils)


def test_the_shipped_configs_offer_quick_and_full():
    for path in (simulated_config_path(), simulated_config_path().with_name("council.yaml")):
        councils = yaml.safe_load(path.read_text())["councils"]
        assert set(councils) == {"quick", "full"} and councils["quick"]["review"] == "judge", path


async def test_a_preset_chooses_members_chairman_and_review_and_the_result_says_so():
    config = config_with({"quick": {"chairman": "none", "review": "judge", "judge": "delta"},
                          "trio": {"members": ["atlas", "boreal", "cirrus"], "chairman": "boreal"}})
    async with Council(config, store=False) as council:
        quick = await council.ask("Why is the sky blue?", preset="quick")
        trio = await council.ask("Why is the sky blue?", preset="trio")
        overridden = await council.ask("Why is the sky blue?", preset="trio", chairman=None, members=["atlas", "delta"])
        plain = await council.ask("Why is the sky blue?")
        with pytest.raises(InvalidRequest, match="unknown preset 'slow'; presets: quick, trio"):
            await council.ask("Why?", preset="slow")
    assert quick.preset == "quick" and [r.reviewer for r in quick.reviews] == ["delta"]
    assert sorted(quick.reviews[0].scores) == ["atlas", "boreal", "cirrus", "delta"], "the judge scores every answer"
    assert all(entry.n_reviews == 1 for entry in quick.ranking) and quick.final_answer.source == "top_answer"
    assert trio.preset == "trio" and [a.member for a in trio.answers] == ["atlas", "boreal", "cirrus"]
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
    assert result["preset"] == "quick" and [r["reviewer"] for r in result["reviews"]] == ["atlas"]
    assert main(["ask", "Why?", "--config", str(config), "--preset", "slow", "--quiet"], environ) == 2
    assert "unknown preset 'slow'; presets: quick" in capsys.readouterr().err
