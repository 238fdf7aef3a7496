"""A run with a second round, asked again with the result cache on: the hit replays the run's stages as they ran.

The simulated council (no keys, no upstream) on a real database.
``review.deliberate_below: 1`` makes every run of the ``deliberate``
preset have a second round, so the test does not depend on how sure the
simulated reviewers happen to be.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from council import Council, CouncilConfig
from council.events import StageEvent
from tests.storage.test_store import simulated_without_latency

QUESTION = "How does the heart pump blood?"


def deliberating(location: str, **review: object) -> CouncilConfig:
    raw = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    storage = {"url": location} if location.startswith("postgresql") else {"path": location}
    raw.update(review={**raw.get("review", {}), "deliberate_below": 1.0, **review}, cache={"ttl_s": 600},
               storage=storage)
    return CouncilConfig.model_validate(raw)


def stages(events: list[StageEvent]) -> list[tuple[str, Any]]:
    """Each event's kind with what tells its place (the stage started, the round); the chairman's deltas as one,
    since a live chairman streams in pieces of its own size and a replay in fixed ones."""
    shown = [(e.kind, e.data.get("stage") or e.data.get("round")) for e in events]
    return [step for i, step in enumerate(shown) if step[0] != "final_delta" or shown[i - 1][0] != "final_delta"]


def jsonable(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data, default=str))


async def test_a_deliberating_run_served_from_the_cache_replays_both_rounds_in_order(db_location):
    async with Council(deliberating(db_location)) as council:
        live: list[StageEvent] = []
        first = await council.ask(QUESTION, preset="deliberate", on_event=live.append)
        replayed: list[StageEvent] = []
        hit = await council.ask(QUESTION, preset="deliberate", on_event=replayed.append)
    assert first.deliberation is not None and first.deliberation.rounds == 2
    assert hit.cached_from == first.run_id
    assert stages(replayed) == stages(live)
    kinds = [kind for kind, _ in stages(replayed)]
    assert kinds.index("ranking") < kinds.index("revision") < kinds.index("deliberation") < kinds.index("final")
    assert ("review", 2) in stages(replayed) and ("ranking", 2) in stages(replayed)

    def by_kind(events: list[StageEvent], kind: str) -> list[Any]:
        return sorted((jsonable(e.data) for e in events if e.kind == kind), key=lambda d: json.dumps(d, sort_keys=True))

    # Members finish in their own order live; the replay keeps the records' order. What each said is the same.
    for kind in ("answer", "safety", "review", "ranking", "revision", "deliberation", "final"):
        assert by_kind(replayed, kind) == by_kind(live, kind), kind
    first_ranking = next(e for e in replayed if e.kind == "ranking")
    assert first_ranking.data["ranking_confidence"] == first.deliberation.confidence_before
    assert [e["member"] for e in first_ranking.data["ranking"]] == \
        [e.member for e in first.deliberation.first_round.ranking]


async def test_a_run_kept_to_one_round_replays_its_reason_after_the_ranking(tmp_path: Path):
    async with Council(deliberating(str(tmp_path / "runs.db"), deliberate_below=0.01, tie_threshold=0.5)) as council:
        live: list[StageEvent] = []
        first = await council.ask("Why is the sky blue?", preset="deliberate", on_event=live.append)
        replayed: list[StageEvent] = []
        hit = await council.ask("Why is the sky blue?", preset="deliberate", on_event=replayed.append)
    assert first.deliberation is not None and first.deliberation.rounds == 1 and hit.cached_from == first.run_id
    assert stages(replayed) == stages(live)
    kinds = [kind for kind, _ in stages(replayed)]
    assert kinds.count("deliberation") == 1 and kinds.index("ranking") + 1 == kinds.index("deliberation")
    assert "revision" not in kinds and ("stage_started", "deliberation") not in stages(replayed)
    assert [jsonable(e.data) for e in replayed if e.kind == "deliberation"] == \
        [jsonable(e.data) for e in live if e.kind == "deliberation"]
