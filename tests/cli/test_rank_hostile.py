"""``council rank`` on hostile ballot and label files: every one ends with exit 2 naming the file and line, or ranks.

Each test runs the real CLI (``council.cli.app.main``, as a user's shell
does) on a file written here. Sizes are the documented limits of
:mod:`council.ranking.ballot_sheets`, read from the module so a change of
limit moves the tests with it; nothing here depends on how long a run takes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from council.cli.app import main
from council.ranking.ballot_file import MAX_SCORE
from council.ranking.ballot_sheets import MAX_CANDIDATES, MAX_CELLS, MAX_JUDGES

USAGE = 2


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def grid(judges: int, candidates: int, item: str = "q") -> list[dict[str, object]]:
    """Every judge scores every candidate of one item (scores vary, so calibration has work to do)."""
    return [{"item": item, "candidate": f"c{c}", "judge": f"j{j}", "score": (c * 7 + j * 3) % 10}
            for j in range(judges) for c in range(candidates)]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["rank", *argv], {})
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- 1. sizes: refused over the limits, ranked at them ---------------------------------------------------------


@pytest.mark.parametrize(("judges", "candidates", "message"), [
    (2, MAX_CANDIDATES + 1, f"has {MAX_CANDIDATES + 1} candidates; council rank handles at most {MAX_CANDIDATES}"),
    (MAX_JUDGES + 1, 2, f"has {MAX_JUDGES + 1} judges; council rank handles at most {MAX_JUDGES}"),
    (MAX_CELLS // 100 + 1, 100, f"council rank handles at most {MAX_CELLS} judge-candidate cells"),
])
def test_an_item_over_a_size_limit_is_refused_with_the_limit_named(tmp_path, capsys, judges, candidates, message):
    ballots = write_rows(tmp_path / "big.jsonl", [{"item": "warmup", "candidate": "a", "judge": "j0", "score": 1},
                                                  *grid(judges, candidates, item="x")])
    code, out, err = run(capsys, str(ballots))
    assert code == USAGE and out == ""
    assert f"{ballots}:2: item 'x'" in err and message in err, err
    assert "internal error" not in err


@pytest.mark.parametrize(("judges", "candidates"), [
    (2, MAX_CANDIDATES), (MAX_JUDGES, MAX_CELLS // MAX_JUDGES), (MAX_CELLS // 100, 100)])
def test_an_item_at_the_limits_ranks(tmp_path, capsys, judges, candidates):
    ballots = write_rows(tmp_path / "at_limit.jsonl", grid(judges, candidates))
    code, out, err = run(capsys, str(ballots), "--json")
    assert code == 0, err
    item = json.loads(out)["items"][0]
    assert len(item["ranking"]) == candidates and item["judges"] == judges
    scores = [entry["score"] for entry in item["ranking"]]
    assert scores == sorted(scores, reverse=True)


# -- 2. JSON too deep, integers too long, CSV fields too large ------------------------------------------------


def test_json_nested_too_deeply_is_named(tmp_path, capsys):
    deep = "[" * 100_000 + "]" * 100_000
    ballots = tmp_path / "deep.jsonl"
    ballots.write_text('{"item": "q", "candidate": "a", "judge": "j", "score": 1}\n'
                       f'{{"item": "q", "candidate": "b", "judge": "j", "score": 1, "extra": {deep}}}\n')
    code, _, err = run(capsys, str(ballots))
    assert code == USAGE and f"{ballots}:2: " in err and "nested too deeply" in err, err


def test_a_5000_digit_integer_is_named(tmp_path, capsys):
    ballots = tmp_path / "long.jsonl"
    ballots.write_text(f'{{"item": "q", "candidate": "a", "judge": "j", "score": {"9" * 5000}}}\n')
    code, _, err = run(capsys, str(ballots))
    assert code == USAGE and f"{ballots}:1: " in err and "digits" in err, err


def test_a_4000_digit_integer_score_is_out_of_range(tmp_path, capsys):
    # Under Python's int-string limit, but too large for a float.
    ballots = tmp_path / "long.jsonl"
    ballots.write_text(f'{{"item": "q", "candidate": "a", "judge": "j", "score": {"9" * 4000}}}\n')
    code, _, err = run(capsys, str(ballots))
    assert code == USAGE and f"{ballots}:1: 'score'" in err, err


def test_a_csv_field_over_the_field_limit_is_named(tmp_path, capsys):
    ballots = tmp_path / "wide.csv"
    ballots.write_text("item,candidate,judge,score\nq,a,j,1\nq," + "b" * (200 * 1024) + ",j,2\n")
    code, _, err = run(capsys, str(ballots))
    assert code == USAGE and f"{ballots}:3: " in err and "field larger than" in err, err


# -- 3. scores too large for the arithmetic ---------------------------------------------------------------------


def test_the_issues_1e308_scores_are_refused(tmp_path, capsys):
    # Issue 44: both judges gave A 1e308, and the ranking came out B > C > A at confidence 1.00.
    ballots = write_rows(tmp_path / "huge.jsonl", [
        {"item": "q", "candidate": "A", "judge": "j1", "score": 1e308},
        {"item": "q", "candidate": "B", "judge": "j1", "score": -1e308},
        {"item": "q", "candidate": "C", "judge": "j1", "score": -1e308},
        {"item": "q", "candidate": "A", "judge": "j2", "score": 1e308},
        {"item": "q", "candidate": "B", "judge": "j2", "score": 0},
        {"item": "q", "candidate": "C", "judge": "j2", "score": -1e308},
    ])
    code, out, err = run(capsys, str(ballots))
    assert code == USAGE and out == ""
    assert f"{ballots}:1: 'score' must be between -{MAX_SCORE:g} and {MAX_SCORE:g}" in err, err


def test_scores_at_the_bound_rank_correctly(tmp_path, capsys):
    ballots = write_rows(tmp_path / "bound.jsonl", [
        {"item": "q", "candidate": name, "judge": judge, "score": score}
        for judge, scores in (("j1", (MAX_SCORE, -MAX_SCORE, -MAX_SCORE)), ("j2", (MAX_SCORE, 0, -MAX_SCORE)))
        for name, score in zip("ABC", scores, strict=True)])
    code, out, err = run(capsys, str(ballots), "--json")
    assert code == 0, err
    report = json.loads(out)
    item = report["items"][0]
    assert [entry["member"] for entry in item["ranking"]] == ["A", "B", "C"]
    # Every figure is a number: a non-finite one would come out as null.
    assert all(isinstance(entry["score"], float) for entry in item["ranking"])
    assert isinstance(item["top_confidence"], float)
    assert all(isinstance(judge[key], float) for judge in report["judges"] for key in ("mean", "sd", "weight"))


def test_a_labels_file_gets_the_same_checks(tmp_path, capsys):
    ballots = write_rows(tmp_path / "ok.jsonl", grid(2, 3))
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"item": "q", "best": "c1", "best": "c2"}\n')
    code, _, err = run(capsys, str(ballots), "--labels", str(labels))
    assert code == USAGE and f"{labels}:1: " in err and "'best' appears twice" in err, err
    labels.write_text('{"item": "q", "order": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    code, _, err = run(capsys, str(ballots), "--labels", str(labels))
    assert code == USAGE and f"{labels}:1: " in err and "nested too deeply" in err, err
    labels.write_text(f'{{"item": "q", "best": {"7" * 5000}}}\n')
    code, _, err = run(capsys, str(ballots), "--labels", str(labels))
    assert code == USAGE and f"{labels}:1: " in err and "digits" in err, err
    csv_labels = tmp_path / "labels.csv"
    csv_labels.write_text("item,best\nq," + "c" * (200 * 1024) + "\n")
    code, _, err = run(capsys, str(ballots), "--labels", str(csv_labels))
    assert code == USAGE and f"{csv_labels}:2: " in err and "field larger than" in err, err


# -- 4. names that would drive the terminal -------------------------------------------------------------------


def test_control_and_bidi_characters_in_names_are_shown_escaped(tmp_path, capsys):
    item, candidate, judge = "q\x1b[2J", "evil\r\nforged  line", "j\u202eoof"
    ballots = write_rows(tmp_path / "names.jsonl", [
        {"item": item, "candidate": name, "judge": voter, "score": score}
        for voter in (judge, "plain") for name, score in ((candidate, 3), ("ok", 1), ("x\u2066y", 2))])
    code, out, err = run(capsys, str(ballots))
    assert code == 0, err
    raw = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
    assert not re.search(raw, out), "nothing raw reaches the terminal"
    assert "q\\x1b[2J" in out and "evil\\r\\nforged  line" in out and "x\\u2066y" in out and "j\\u202eoof" in out
    assert len(out.splitlines()) == 12, "two judges and one item: no forged lines"
    # The JSON form is JSON: the names come back exactly.
    code, out, _ = run(capsys, str(ballots), "--json")
    report = json.loads(out)
    assert report["items"][0]["item"] == item and report["items"][0]["ranking"][0]["member"] == candidate
    assert {j["judge"] for j in report["judges"]} == {judge, "plain"}


# -- 5. duplicate keys --------------------------------------------------------------------------------------------


def test_a_duplicate_key_in_a_ballot_row_is_refused(tmp_path, capsys):
    ballots = tmp_path / "dup.jsonl"
    ballots.write_text('{"item": "q", "candidate": "a", "judge": "j", "score": 1}\n'
                       '{"item": "q", "candidate": "b", "judge": "j", "score": 1, "score": 9}\n')
    code, _, err = run(capsys, str(ballots))
    assert code == USAGE and f"{ballots}:2: " in err and "'score' appears twice" in err, err


def test_names_in_the_learned_weights_tables_are_escaped_too(tmp_path, capsys):
    """``--learn`` prints tables of its own (the judges' learned weights): the file's names are escaped there too."""
    judge = "j\x1b[2J\u202e"
    rows = [{"item": f"q{n}", "candidate": name, "judge": voter, "score": score}
            for n in range(6) for voter in (judge, "plain")
            for name, score in (("a", 2 + n % 3), ("b", 1 + (n * 2) % 3))]
    ballots = write_rows(tmp_path / "names.jsonl", rows)
    labels = write_rows(tmp_path / "labels.jsonl", [{"item": f"q{n}", "best": "a"} for n in range(6)])
    code, out, err = run(capsys, str(ballots), "--labels", str(labels), "--learn")
    assert code == 0, err
    assert "Learned weights" in out
    assert "\x1b" not in out and "\u202e" not in out, "nothing raw reaches the terminal"
    assert out.count("j\\x1b[2J\\u202e") >= 3, "the judge named, escaped, in the judges and learned tables"


def test_names_in_an_error_message_are_escaped_too(tmp_path, capsys):
    ballots = write_rows(tmp_path / "names.jsonl", [
        {"item": "q", "candidate": name, "judge": "j", "score": score}
        for name, score in (("a\x1b]0;pwned\x07", 1), ("b\u202e", 2), ("c", 3))])
    labels = write_rows(tmp_path / "labels.jsonl", [{"item": "q", "best": "z"}])
    code, _, err = run(capsys, str(ballots), "--labels", str(labels))
    assert code == USAGE and f"{labels}:1: item 'q' has no candidate 'z'" in err, err
    assert "\x1b" not in err and "\u202e" not in err and "\\x1b]0;pwned\\x07" in err
