"""The CLI report says how sure the council is of its top answer."""

from __future__ import annotations

import json
import os
import re

from council.cli.app import EXIT_OK, main


def test_the_report_names_the_top_answer_and_its_confidence(capsys, tmp_path):
    environ = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db")}
    assert main(["ask", "Why is the sky blue?", "--json"], environ) == EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert main(["show", result["run_id"]], environ) == EXIT_OK
    out = capsys.readouterr().out
    top, confidence = result["ranking"][0]["member"], result["ranking_confidence"]
    if result["tied_for_first"]:
        tied = ", ".join([top, *result["tied_for_first"]])
        expected = f"no clear winner: {tied} are statistically tied ({top} came first with {confidence:.2f} confidence)"
    else:
        expected = f"{top} is best with {confidence:.2f} confidence"
    assert expected in out.splitlines()
    assert re.search(r"^Ranking \(calibrated\):", out, re.MULTILINE)
