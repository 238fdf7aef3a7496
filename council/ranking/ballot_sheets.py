"""From ballot rows to one score sheet per item: games averaged per answer, and each judge's position consistency.

A judge may score the same item several times (``game``), typically with
the answers in swapped orders to cancel a position bias. Its scores of one
answer are averaged over its games before anything ranks, so the sheet has
one score per judge and answer, as a council's has. How often the judge's
top pick stayed the same from game to game is kept per item: it is the
judge's *position consistency* (``1.0`` never changed its mind with the
order; ``0.5`` on pairs is a coin toss).

A row repeating a judge's score of the same answer needs its own ``game``
(or a different ``position``, and then the n-th score of each answer is
game n); otherwise it is an error, since a copy and a replay cannot be told
apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from council.ranking.ballot_file import Ballot, BallotError
from council.ranking.sheet import ScoreSheet

# Per item, the sheet is dense (judges x candidates) and agreement, Borda, Bradley-Terry and the rank
# resampling grow with the square of one side: a hostile file with 100,000 candidates in one item took
# gigabytes. These bound one item, so memory and time stay those of an ordinary run (docs/ranking.md,
# "Limits and hostile files"); a file over them is refused before any sheet is built.
MAX_CANDIDATES = 1000
"""Candidates one item may have."""
MAX_JUDGES = 1000
"""Judges one item may have."""
MAX_CELLS = 10_000
"""Judges times candidates of one item (the cells of its score sheet)."""


@dataclass(frozen=True)
class ItemSheet:
    """One item's sheet and, per judge that played two or more games of it, whether its top pick held."""

    item: str
    sheet: ScoreSheet
    #: judge -> (games compared, top pick the same in all of them)
    consistency: dict[str, tuple[int, bool]] = field(default_factory=dict)


@dataclass
class _Cell:
    """One judge's scores of one answer of one item, per game: overall and per dimension."""

    overall: dict[str, float] = field(default_factory=dict)
    dimensions: dict[str, dict[str, float]] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)
    lines: dict[tuple[str, str | None], int] = field(default_factory=dict)
    unnamed: dict[str | None, list[tuple[int | None, int]]] = field(default_factory=dict)


def _game(cell: _Cell, row: Ballot, source: str) -> str:
    """The game this row belongs to; raises on a repeated score that names no game."""
    if row.game is not None:
        key = (row.game, row.dimension)
        if key in cell.lines:
            raise BallotError(f"{source}:{row.line}: judge {row.judge!r} already scored {row.candidate!r} of item "
                              f"{row.item!r} in game {row.game!r} on line {cell.lines[key]}")
        cell.lines[key] = row.line
        return row.game
    seen = cell.unnamed.setdefault(row.dimension, [])
    if seen and (row.position is None or any(p is None or p == row.position for p, _ in seen)):
        raise BallotError(f"{source}:{row.line}: judge {row.judge!r} already scored {row.candidate!r} of item "
                          f"{row.item!r} on line {seen[0][1]}; give each game its own 'game' (or 'position')")
    seen.append((row.position, row.line))
    return f"#{len(seen) - 1}"


def top_pick(scores: Mapping[str, float]) -> frozenset[str]:
    """The answers a judge scored best in one game (several when they tie)."""
    best = max(scores.values())
    return frozenset(name for name, value in scores.items() if value == best)


def check_sizes(rows: Sequence[Ballot], source: str = "ballots") -> None:
    """Raise :class:`BallotError` naming the first item over ``MAX_CANDIDATES``, ``MAX_JUDGES`` or ``MAX_CELLS``.

    Counting is linear in the rows, so a file too big to rank is refused at the cost of reading it.
    """
    first_line: dict[str, int] = {}
    names: dict[str, set[str]] = {}
    voters: dict[str, set[str]] = {}
    for row in rows:
        first_line.setdefault(row.item, row.line)
        names.setdefault(row.item, set()).add(row.candidate)
        voters.setdefault(row.item, set()).add(row.judge)
    for item, line in first_line.items():
        where = f"{source}:{line}: item {_short(item)}"
        n_cand, n_judges = len(names[item]), len(voters[item])
        if n_cand > MAX_CANDIDATES:
            raise BallotError(f"{where} has {n_cand} candidates; council rank handles at most "
                              f"{MAX_CANDIDATES} per item")
        if n_judges > MAX_JUDGES:
            raise BallotError(f"{where} has {n_judges} judges; council rank handles at most {MAX_JUDGES} per item")
        if n_cand * n_judges > MAX_CELLS:
            raise BallotError(f"{where} has {n_judges} judges x {n_cand} candidates = {n_judges * n_cand} cells; "
                              f"council rank handles at most {MAX_CELLS} judge-candidate cells per item")


def _short(name: str) -> str:
    shown = repr(name)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def top_pick_held(games: Sequence[Mapping[str, float]]) -> bool:
    """Whether a judge's top pick was the same in every game (its position consistency on one item)."""
    first = top_pick(games[0])
    return all(top_pick(scores) == first for scores in games[1:])


def item_sheets(rows: Sequence[Ballot], source: str = "ballots") -> list[ItemSheet]:
    """One :class:`ItemSheet` per item, in the order items first appear; raises on an item over the size limits
    (:func:`check_sizes`) or a repeated score."""
    check_sizes(rows, source)
    items: dict[str, dict[tuple[str, str], _Cell]] = {}
    candidates: dict[str, list[str]] = {}
    judges: dict[str, list[str]] = {}
    for row in rows:
        cells = items.setdefault(row.item, {})
        names, voters = candidates.setdefault(row.item, []), judges.setdefault(row.item, [])
        if row.candidate not in names:
            names.append(row.candidate)
        if row.judge not in voters:
            voters.append(row.judge)
        cell = cells.setdefault((row.judge, row.candidate), _Cell())
        game = _game(cell, row, source)
        if row.dimension is None:
            cell.overall[game] = row.score
        else:
            cell.dimensions.setdefault(row.dimension, {})[game] = row.score
        if row.position is not None:
            cell.positions[game] = row.position
    return [_sheet(item, candidates[item], judges[item], cells) for item, cells in items.items()]


def _overall_by_game(cell: _Cell) -> dict[str, float]:
    """Per game, the overall score; a game with only dimension scores has their mean."""
    games = set(cell.overall) | {g for scores in cell.dimensions.values() for g in scores}
    out = {}
    for game in games:
        if game in cell.overall:
            out[game] = cell.overall[game]
        else:
            values = [scores[game] for scores in cell.dimensions.values() if game in scores]
            out[game] = sum(values) / len(values)
    return out


def _sheet(item: str, names: list[str], voters: list[str], cells: dict[tuple[str, str], _Cell]) -> ItemSheet:
    shape = (len(voters), len(names))
    overall = np.full(shape, np.nan)
    position = np.full(shape, -1, dtype=int)
    dimension_ids = sorted({d for cell in cells.values() for d in cell.dimensions})
    dimensions = {d: np.full(shape, np.nan) for d in dimension_ids}
    consistency: dict[str, tuple[int, bool]] = {}
    for r, judge in enumerate(voters):
        per_game: dict[str, dict[str, float]] = {}
        for c, name in enumerate(names):
            cell = cells.get((judge, name))
            if cell is None:
                continue
            games = _overall_by_game(cell)
            overall[r, c] = sum(games.values()) / len(games)
            for game, value in games.items():
                per_game.setdefault(game, {})[name] = value
            for d, scores in cell.dimensions.items():
                dimensions[d][r, c] = sum(scores.values()) / len(scores)
            if len(games) == 1 and cell.positions:
                position[r, c] = next(iter(cell.positions.values()))
        compared = [scores for scores in per_game.values() if len(scores) >= 2]
        if len(compared) >= 2:
            consistency[judge] = (len(compared), top_pick_held(compared))
    lengths = np.full(len(names), math.nan)
    return ItemSheet(item, ScoreSheet(tuple(names), tuple(voters), overall, dimensions, position, lengths),
                     consistency)
