"""The CLI reports what a run cost, from the members' prices, and says when the total is partial."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from council.cli.app import EXIT_OK, main
from council.config import simulated_config_path

PRICES = {"atlas": {"input_per_mtok": 3.0, "output_per_mtok": 15.0},
          "boreal": {"input_per_mtok": 0.5, "output_per_mtok": 1.5}}


def priced_config(tmp_path, prices):
    """The simulated council (its members report token usage) with some members priced."""
    raw = yaml.safe_load(simulated_config_path().read_text())
    for member in raw["members"]:
        if member["name"] in prices:
            member["price"] = prices[member["name"]]
    path = tmp_path / "priced.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def ask(capsys, tmp_path, config, *flags):
    environ = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db")}
    code = main(["ask", "Why is the sky blue?", "--config", str(config), *flags], environ)
    return code, capsys.readouterr().out


def test_the_report_shows_the_cost_and_what_was_not_priced(capsys, tmp_path):
    config = priced_config(tmp_path, PRICES)
    code, out = ask(capsys, tmp_path, config, "--json")
    assert code == EXIT_OK
    result = json.loads(out)
    # Recompute every call's cost from its tokens and the member's price.
    expected: dict[str, float] = {}
    for call in result["cost"]["calls"]:
        price = PRICES.get(call["member"])
        if price is None:
            assert call["usd"] is None
            continue
        usd = (call["prompt_tokens"] * price["input_per_mtok"] + call["completion_tokens"] * price["output_per_mtok"])
        expected[call["member"]] = expected.get(call["member"], 0.0) + usd / 1_000_000
    assert result["cost"]["by_member"] == pytest.approx(expected)
    assert result["cost"]["total_usd"] == pytest.approx(sum(expected.values()))
    assert result["cost"]["partial"] is True
    assert sorted(result["cost"]["unpriced"]) == ["cirrus", "delta"]

    code, out = ask(capsys, tmp_path, config)
    line = out.strip().splitlines()[-1]
    assert line.startswith("cost: $") and "answers $" in line and "reviews $" in line and "chairman $" in line
    assert line.endswith("; partial: no price for cirrus, delta")  # in the order their first calls were made


def test_without_prices_the_cost_is_unknown_not_zero(capsys, tmp_path):
    code, out = ask(capsys, tmp_path, simulated_config_path())
    assert code == EXIT_OK
    assert out.strip().splitlines()[-1] == "cost: unknown (no member has a price; set members[].price in the config)"


def test_runs_since_sums_what_the_period_cost(capsys, tmp_path):
    config = priced_config(tmp_path, PRICES)
    totals = []
    for _ in range(2):
        code, out = ask(capsys, tmp_path, config, "--json")
        assert code == EXIT_OK
        totals.append(json.loads(out)["cost"]["total_usd"])
    environ = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db")}
    assert main(["runs", "--since", "1d"], environ) == EXIT_OK
    out = capsys.readouterr().out.strip().splitlines()
    expected = sum(totals)
    assert out[-2].startswith("cost since ") and out[-2].endswith(
        f"UTC: ${expected:.4f} over 2 runs (2 with a partial or unknown cost: members without a price)")
    assert out[-1] == "0 direct calls (member/NAME and chat apps' side tasks): $0.0000"
    run_lines = [line for line in out if "[sim]" in line]
    assert len(run_lines) == 2
    assert all(any(f"${total:.4f}+" in line for total in totals) for line in run_lines), "marked partial"
    assert main(["runs", "--since", "soon"], environ) == 2
    assert "--since 'soon': give a positive age like 30d" in capsys.readouterr().err


def test_ask_with_max_usd_needs_prices_and_stays_within_it(capsys, tmp_path):
    code, _out = ask(capsys, tmp_path, priced_config(tmp_path, PRICES), "--max-usd", "0.05")
    assert code == 2
    everyone = {name: {"input_per_mtok": 3.0, "output_per_mtok": 15.0}
                for name in ("atlas", "boreal", "cirrus", "delta")}
    code, out = ask(capsys, tmp_path, priced_config(tmp_path, everyone), "--max-usd", "0.15", "--json")
    result = json.loads(out)
    assert result["cost"]["budget_usd"] == 0.15 and result["cost"]["total_usd"] <= 0.15
    assert any(reason.startswith("budget $0.15 reached: not called:") for reason in result["degraded_reasons"])


def test_an_unpriced_period_is_unknown_and_a_budget_names_each_unpriced_member_once(capsys, tmp_path):
    code, _out = ask(capsys, tmp_path, simulated_config_path())
    assert code == EXIT_OK
    environ = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db")}
    assert main(["runs", "--since", "1d"], environ) == EXIT_OK
    last = capsys.readouterr().out.strip().splitlines()[-2]
    assert last.endswith("UTC: unknown for all 1 run (members without a price)"), last
    assert main(["ask", "Why?", "--max-usd", "0.01"], environ) == 2
    assert "no price: atlas, boreal, cirrus, delta (add" in capsys.readouterr().err
