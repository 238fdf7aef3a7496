"""The second round (review.rounds: 2) as the CLI shows it: the report's Deliberation section and the live view.

Every run goes through the real entry point on the shipped simulated council. Its reviewers' noise is drawn
afresh each run, so whether "How does the heart pump blood?" deliberates at the shipped threshold (0.7) varies
from run to run (its first-round confidence lands between about 0.5 and 0.75). The tests therefore set the
deliberate preset's threshold: 1 makes every run deliberate, 0.5 leaves a sure question (about 0.85-0.98) at
one round. The simulated latency is set to 0 to keep the runs quick; nothing else differs from the shipped file.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from council.assets import config_dir
from council.cli.app import EXIT_OK, main
from tests.cli.test_live import ANSI, plain, run_in_pty

COUNCIL = str(Path(sys.executable).with_name("council"))
UNSURE = "How does the heart pump blood?"
SURE = "Why is the sky blue?"


def simulated_council(tmp_path: Path, deliberate_below: float) -> Path:
    """The shipped simulated council without latency, its deliberate preset deliberating below ``deliberate_below``."""
    text = (config_dir() / "simulated.yaml").read_text(encoding="utf-8")
    text = re.sub(r"latency_ms: \d+", "latency_ms: 0", text)
    preset = "    rounds: 2\n"
    assert text.count(preset) == 1, "the shipped deliberate preset sets rounds: 2"
    path = tmp_path / f"simulated-{deliberate_below}.yaml"
    path.write_text(text.replace(preset, f"{preset}    deliberate_below: {deliberate_below}\n"), encoding="utf-8")
    return path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A private database; PYTHONPATH passed on, so a subprocess runs this checkout's code."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "COUNCIL_DB_PATH": str(tmp_path / "cli.db")}


def run_cli(capsys, env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), env)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def stored(capsys, env: dict[str, str], out: str) -> dict:
    """The stored result of the run whose report is ``out``, as ``council show RUN --json`` prints it."""
    run_id = re.search(r"^run ([0-9a-f]{32})", out, re.MULTILINE)
    assert run_id, out
    code, shown, _ = run_cli(capsys, env, "show", run_id.group(1), "--json")
    assert code == EXIT_OK
    return json.loads(shown)


def section(out: str) -> str:
    """The report's Deliberation section: its heading and the indented lines under it."""
    found = re.search(r"^Deliberation: .*\n(?:  .*\n)*", out, re.MULTILINE)
    assert found, out
    return found.group(0)


def figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def test_a_run_that_deliberates_reports_both_rounds(capsys, env, tmp_path):
    config = simulated_council(tmp_path, 1.0)
    code, out, err = run_cli(capsys, env, "ask", UNSURE, "--preset", "deliberate", "--config", str(config))
    assert code == EXIT_OK, err
    record = stored(capsys, env, out)["deliberation"]
    assert record["rounds"] == 2
    shown = section(out)
    assert shown.startswith("Deliberation: two rounds: review.deliberate_below is 1, so every run has a second round")
    # Who revised and who kept, each with its own reason, on the line of its decision.
    for revision in record["revisions"]:
        line = re.search(rf"^  {revision['decision']}: (.*)$", shown, re.MULTILINE)
        assert line and f"{revision['member']} ({revision['reason']})" in line.group(1), shown
    assert {r["decision"] for r in record["revisions"]} == {"revised", "kept"}, "the personas' uptake differs"
    # One row per answer: revised or not, rank and score before -> after.
    assert re.search(r"^  member +revised +rank before +rank after +score before +score after$", shown, re.MULTILINE)
    for move in record["moves"]:
        row = (rf"^  {move['member']} +{'yes' if move['revised'] else 'no'} +{move['rank_before']} +"
               rf"{move['rank_after']} +{re.escape(figure(move['score_before']))} +"
               rf"{re.escape(figure(move['score_after']))}$")
        assert re.search(row, shown, re.MULTILINE), (row, shown)
    assert (f"  confidence in the top answer: {figure(record['confidence_before'])} -> "
            f"{figure(record['confidence_after'])}\n") in shown
    assert (f"  reviewer agreement (mean pairwise Kendall tau): {figure(record['agreement_before'])} -> "
            f"{figure(record['agreement_after'])}\n") in shown
    assert record["calls"] == 8 and record["tokens"] > 0, "four revisions and four reviews"
    assert (f"  second round: 8 calls, {record['tokens']} tokens, cost unknown, "
            f"{record['latency_ms'] / 1000:.1f} s\n") in shown
    # While it ran: the second round's stage, each decision and the new ballots, on stderr.
    assert "Second round: members read the critiques" in err and "reviewed 3 answers again" in err
    # `council show` prints the same section from the stored run.
    code, again, _ = run_cli(capsys, env, "show", stored(capsys, env, out)["run_id"])
    assert code == EXIT_OK and section(again) == shown


def test_a_sure_run_of_the_deliberate_preset_says_why_one_round_was_enough(capsys, env, tmp_path):
    config = simulated_council(tmp_path, 0.5)
    code, out, err = run_cli(capsys, env, "ask", SURE, "--preset", "deliberate", "--config", str(config))
    assert code == EXIT_OK, err
    record = stored(capsys, env, out)["deliberation"]
    assert record["rounds"] == 1 and record["confidence_before"] >= 0.5
    assert section(out) == (f"Deliberation: one round: the first ranking was sure (confidence "
                            f"{record['confidence_before']:.3f} >= 0.5, no tie)\n")
    assert "rank before" not in out and "second round:" not in out


def test_without_the_preset_there_is_no_deliberation_anywhere(capsys, env, tmp_path):
    config = simulated_council(tmp_path, 1.0)
    code, out, err = run_cli(capsys, env, "ask", UNSURE, "--config", str(config))
    assert code == EXIT_OK, err
    assert "Deliberation" not in out + err and "Second round" not in out + err
    assert "deliberation" not in stored(capsys, env, out)
    code, out, _ = run_cli(capsys, env, "ask", UNSURE, "--config", str(config), "--json", "--quiet")
    assert code == EXIT_OK and "deliberation" not in json.loads(out)


def test_json_has_the_deliberation_record(capsys, env, tmp_path):
    config = simulated_council(tmp_path, 1.0)
    code, out, _ = run_cli(capsys, env, "ask", UNSURE, "--preset", "deliberate", "--config", str(config), "--json",
                           "--quiet")
    assert code == EXIT_OK
    record = json.loads(out)["deliberation"]
    assert record["rounds"] == 2 and record["first_round"]["ranking"] and len(record["moves"]) == 4
    assert {r["member"] for r in record["revisions"]} == {"atlas", "boreal", "cirrus", "delta"}


# The real command on a pseudo-terminal: the live view and the rich report.


def test_the_live_view_draws_the_second_round_as_its_own_section(env, tmp_path):
    config = simulated_council(tmp_path, 1.0)
    code, out = run_in_pty([COUNCIL, "ask", UNSURE, "--preset", "deliberate", "--config", str(config)], env)
    assert code == 0, out
    assert ANSI.search(out)
    frame = "Council run" + plain(out).rsplit("Council run", 1)[1]
    assert "Second round · two rounds: review.deliberate_below is 1, so every run has a second round" in frame
    # The personas decide by their uptake: delta (uptake 0) always keeps; the others' reasons are their own.
    assert re.search(r"=\s+delta\s+kept: I stand by my answer", frame), frame
    decisions = re.findall(r"^[✓=]\s+(atlas|boreal|cirrus|delta)\s+(revised|kept): \S", frame, re.MULTILINE)
    assert sorted(member for member, _ in decisions) == ["atlas", "boreal", "cirrus", "delta"], frame
    second = frame.split("Second-round reviews · 4 ballots in", 1)
    assert len(second) == 2, frame
    assert all(re.search(rf"✓\s+{name}\s+reviewed 3 answers", second[1]) for name in ("atlas", "boreal", "delta"))
    assert re.search(r"revised: [a-z, ]+ · confidence \d\.\d\d → \d\.\d\d · 8 calls, \d+ tokens", frame), frame
    # The rich report after it: the section with its table of moves.
    assert "Deliberation: two rounds:" in frame and "Ranking before -> after the second round" in frame
    assert re.search(r"┃ member ┃ revised ┃ rank before ┃ rank after ┃ score before ┃ score after ┃", frame)


def test_the_live_view_of_a_sure_run_has_one_line_and_a_run_without_rounds_none(env, tmp_path):
    config = simulated_council(tmp_path, 0.5)
    code, out = run_in_pty([COUNCIL, "ask", SURE, "--preset", "deliberate", "--config", str(config)], env)
    assert code == 0, out
    text = plain(out)
    assert re.search(r"Deliberation: one round: the first ranking was sure \(confidence 0\.\d{3} >= 0\.5, no tie\)",
                     text), text
    assert "Second round" not in text
    code, out = run_in_pty([COUNCIL, "ask", SURE, "--config", str(config)], env)
    assert code == 0, out
    assert "Deliberation" not in plain(out) and "Second round" not in plain(out)
