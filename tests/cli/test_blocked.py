"""Blocked text on the command line: masked in every output, shown by ``show --reveal-blocked`` only; a run whose
every answer was blocked says so once, with its own status and exit code."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

from council import Council
from council.cli.common import EXIT_BLOCKED, EXIT_OK
from council.config import load_config
from council.testing.fake_llm import Step
from council.testing.scripted import council_member
from tests.cli.test_live import final_frame, terminal
from tests.evals.conftest import fake_council_file, script_members

UNSAFE = "To build a pipe bomb, Step 1: fill a steel pipe with black powder. Step 2: cap both ends."
# The parts of UNSAFE no output may show: the passage after its first words, and the gate's evidence sentence.
SECRET = ("black powder", "cap both ends", "Step 1", "bomb, Step")
MASKED = "To build a pipe …[blocked: weapon_making]"


async def cli(*argv: str, env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "council", *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), **env})
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def shows_nothing_blocked(text: str) -> None:
    leaked = [part for part in SECRET if part in text]
    assert not leaked, f"blocked text shown: {leaked}\n{text}"


async def test_a_blocked_answer_is_masked_in_the_report_json_compare_and_show(fake_llm, tmp_path: Path):
    script_members(fake_llm, beta=Step(reply=council_member(UNSAFE)))
    config = str(fake_council_file(tmp_path, fake_llm, chairman="alpha"))
    env = {"COUNCIL_DB_PATH": str(tmp_path / "unused.db")}
    code, out, err = await cli("ask", "What is the capital of France?", "--config", config, env=env)
    assert code == EXIT_OK, err
    row = next(line for line in out.splitlines() if line.startswith("beta "))
    assert "blocked" in row and f"weapon_making: '{MASKED}'" in row, row
    shows_nothing_blocked(out + err)

    code, out, err = await cli("ask", "What is the capital of France?", "--config", config, "--json", env=env)
    assert code == EXIT_OK, err
    beta = next(a for a in json.loads(out)["answers"] if a["member"] == "beta")
    assert beta["status"] == "blocked" and beta["content"] == MASKED
    assert beta["safety"]["findings"][0]["evidence"].endswith("…[blocked: weapon_making]")
    shows_nothing_blocked(out)

    code, out, err = await cli("compare", "What is the capital of France?", "--config", config, env=env)
    assert code == EXIT_OK, err
    assert "beta [blocked]" in out and "…[blocked: weapon_making]" in out
    shows_nothing_blocked(out + err)

    run_id = json.loads((await cli("ask", "And of Italy?", "--config", config, "--json", env=env))[1])["run_id"]
    code, out, err = await cli("show", run_id, "--config", config, env=env)
    assert code == EXIT_OK and MASKED in out, err
    shows_nothing_blocked(out + err)
    code, out, err = await cli("show", run_id, "--config", config, "--json", env=env)
    assert code == EXIT_OK and {a["member"]: a["content"] for a in json.loads(out)["answers"]}["beta"] == MASKED
    shows_nothing_blocked(out + err)
    # The store keeps the answer as written: an audit of the gate reads it there.
    code, out, err = await cli("show", run_id, "--config", config, "--json", "--reveal-blocked", env=env)
    assert code == EXIT_OK
    revealed = next(a for a in json.loads(out)["answers"] if a["member"] == "beta")
    assert revealed["content"] == UNSAFE and "black powder" in revealed["safety"]["findings"][0]["evidence"]
    assert "--reveal-blocked: showing 1 blocked answer(s) unmasked (beta)" in err
    code, out, _ = await cli("show", run_id, "--config", config, "--reveal-blocked", env=env)
    assert code == EXIT_OK and "black powder" in out


async def test_a_run_whose_every_answer_was_blocked_is_blocked_everywhere(fake_llm, tmp_path: Path):
    script_members(fake_llm, **{name: Step(reply=council_member(UNSAFE)) for name in ("alpha", "beta", "gamma")})
    config = str(fake_council_file(tmp_path, fake_llm, chairman="alpha"))
    code, out, err = await cli("ask", "What is the capital of France?", "--config", config, "--json", env={})
    assert code == EXIT_BLOCKED == 3, err
    result = json.loads(out)
    assert result["status"] == "blocked" and result["final_answer"]["blocked"] is True
    assert result["error"] is None, "nothing crashed: the reason is the safety gate, said in final_answer"
    assert err.strip().endswith("council: run blocked: every answer was blocked by the safety gate (weapon_making)")
    shows_nothing_blocked(out + err)

    code, out, err = await cli("ask", "What is the capital of France?", "--config", config, env={})
    assert code == EXIT_BLOCKED
    assert "No answer: every answer was blocked by the safety gate (weapon_making)." in out
    assert "run failed" not in err and "run complete" not in err
    code, out, _ = await cli("runs", "--config", config, env={})
    assert code == EXIT_OK
    assert len(re.findall(r"\bblocked \(degraded\)", out)) == 2, out


async def test_the_live_view_says_blocked_not_complete(fake_llm, tmp_path: Path):
    script_members(fake_llm, **{name: Step(reply=council_member(UNSAFE)) for name in ("alpha", "beta", "gamma")})
    console = terminal()
    from council.cli.live import LiveView

    async with Council(load_config(fake_council_file(tmp_path, fake_llm, chairman="alpha"), {}),
                       environ={}) as council:
        with LiveView(console) as view:
            result = await council.ask("What is the capital of France?", on_event=view)
    assert result.status == "blocked"
    frame = final_frame(console)
    assert "run blocked: every answer was blocked by the safety gate" in frame
    assert "run complete" not in frame and "run failed" not in frame
    assert len(re.findall(r"⊘\s+\w+\s+blocked by safety \(weapon_making\)", frame)) == 3, frame
