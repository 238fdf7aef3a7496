"""Reading judges' ballots and the right answers from JSONL or CSV files, every bad row named by its line.

A ballot row is one judge's score for one candidate answer of one item:
``item, candidate, judge, score``, and optionally ``game`` (a judge that saw
the item several times, e.g. in swapped orders), ``position`` (the slot the
candidate was shown in, 0 or more) and ``dimension`` (a rubric criterion;
empty or ``overall`` for the overall score). A labels row gives an item's
right answer (``best``) or its whole order (``order``: a JSON list, or
candidates joined by ``>`` in CSV).

Nothing is dropped silently: a malformed row raises :class:`BallotError`
naming the file and line; columns the reader does not use are listed in
:attr:`BallotRows.ignored_columns` for the caller to say.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council import strict_json
from council.errors import InvalidRequestError

BALLOT_COLUMNS = ("item", "candidate", "judge", "score", "game", "position", "dimension")
"""The columns a ballot row may have; the first four are required."""
REQUIRED = BALLOT_COLUMNS[:4]
LABEL_COLUMNS = ("item", "best", "order")
OVERALL = "overall"
MAX_SCORE = 1e15
"""The largest score magnitude read. Beyond it the calibration's squares and sums could overflow (1e308 did,
silently reordering a ranking); within it every intermediate stays finite with room to spare."""
MAX_POSITION = 1_000_000
"""The largest presentation slot read (slots count the answers shown, far fewer)."""


class BallotError(InvalidRequestError):
    """A ballot or labels file (or row) is malformed; the message names the file, the line and what is wrong."""


@dataclass(frozen=True)
class Ballot:
    """One row: ``judge`` gave ``candidate`` of ``item`` this ``score`` (see the module docstring)."""

    item: str
    candidate: str
    judge: str
    score: float
    game: str | None = None
    position: int | None = None
    dimension: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Label:
    """The right order of one item's candidates (best first; just the best when that is all that is known)."""

    order: list[str]
    line: int = 0


@dataclass(frozen=True)
class BallotRows:
    """The rows of a ballot file, in file order, and the columns it had that were not used."""

    rows: list[Ballot]
    ignored_columns: list[str]


def _lines(path: Path) -> tuple[str, str]:
    """The file's text and its format (``jsonl`` or ``csv``): by extension, else by its first character."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BallotError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BallotError(f"{path}: cannot be read ({error})") from None
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return text, "jsonl"
    if suffix in (".csv", ".tsv"):
        return text, "csv"
    return text, "jsonl" if text.lstrip().startswith("{") else "csv"


def _records(source: str, text: str, kind: str) -> Iterable[tuple[int, dict[str, object]]]:
    """(line number, fields) of each non-blank row."""
    if kind == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            value = _json_row(f"{source}:{number}", line)
            if not isinstance(value, dict):
                raise BallotError(f"{source}:{number}: expected a JSON object, got {type(value).__name__}")
            yield number, value
        return
    delimiter = "\t" if source.lower().endswith(".tsv") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    for cells in _csv_rows(source, reader):
        if not any(cell.strip() for cell in cells):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in cells]
            continue
        if len(cells) != len(header):
            raise BallotError(f"{source}:{reader.line_num}: {len(cells)} fields, but the header has {len(header)}")
        yield reader.line_num, {name: cell.strip() for name, cell in zip(header, cells, strict=True) if cell.strip()}


def _json_row(where: str, line: str) -> object:
    """One JSONL line, strictly (no NaN, no duplicate keys); anything Python's decoder cannot take is named."""
    try:
        return strict_json.loads(line)
    except json.JSONDecodeError as error:
        raise BallotError(f"{where}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise BallotError(f"{where}: JSON nested too deeply") from None
    except ValueError as error:  # a duplicate key, NaN, 1e999, or an integer past Python's digit limit
        raise BallotError(f"{where}: not valid JSON ({error})") from None


def _csv_rows(source: str, reader: Any) -> Iterator[list[str]]:
    """The rows of a ``csv.reader``; a row it cannot read (a field over its size limit) is named by line."""
    while True:
        try:
            cells: list[str] = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise BallotError(f"{source}:{reader.line_num}: not valid CSV ({error})") from None
        yield cells


def _text(where: str, row: Mapping[str, object], name: str, *, required: bool) -> str | None:
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise BallotError(f"{where}: missing {name!r}")
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BallotError(f"{where}: {name!r} must be text, got {_shown(value)}")
    return str(value).strip()


def _number(where: str, value: object) -> float:
    if isinstance(value, bool):
        raise BallotError(f"{where}: 'score' must be a number, got {json.dumps(value)}")
    try:
        score = float(value)  # type: ignore[arg-type]  # anything float() refuses is the error below
    except OverflowError:  # an integer of hundreds of digits
        raise BallotError(f"{where}: 'score' must be between -{MAX_SCORE:g} and {MAX_SCORE:g}, "
                          f"got an integer of {len(str(value))} digits") from None
    except (TypeError, ValueError):
        raise BallotError(f"{where}: 'score' must be a number, got {_shown(value)}") from None
    if not math.isfinite(score):
        raise BallotError(f"{where}: 'score' must be a finite number, got {_shown(value)}")
    if abs(score) > MAX_SCORE:
        raise BallotError(f"{where}: 'score' must be between -{MAX_SCORE:g} and {MAX_SCORE:g}, got {score:g}")
    return score


def _shown(value: object) -> str:
    """``value`` as a message shows it: its repr, cut to 60 characters (a cell can be 128 KiB)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _position(where: str, value: object) -> int | None:
    if value is None or value == "":
        return None
    try:
        slot = int(str(value)) if not isinstance(value, bool) else -1
    except ValueError:
        slot = -1
    if not 0 <= slot <= MAX_POSITION:
        raise BallotError(f"{where}: 'position' must be a whole number from 0 to {MAX_POSITION}, got {_shown(value)}")
    return slot


def parse_ballots(records: Iterable[tuple[int, Mapping[str, object]]], source: str) -> BallotRows:
    """Ballots from (line, fields) records; raises :class:`BallotError` on the first bad one."""
    rows: list[Ballot] = []
    ignored: set[str] = set()
    for number, row in records:
        where = f"{source}:{number}"
        ignored.update(str(k) for k in row if k not in BALLOT_COLUMNS)
        item, candidate, judge = (_text(where, row, name, required=True) for name in REQUIRED[:3])
        if "score" not in row or row["score"] is None or row["score"] == "":
            raise BallotError(f"{where}: missing 'score'")
        dimension = _text(where, row, "dimension", required=False)
        rows.append(Ballot(item=str(item), candidate=str(candidate), judge=str(judge),
                           score=_number(where, row["score"]), game=_text(where, row, "game", required=False),
                           position=_position(where, row.get("position")),
                           dimension=None if dimension in (None, OVERALL) else dimension, line=number))
    if not rows:
        raise BallotError(f"{source}: no ballot rows (each row needs {', '.join(REQUIRED)})")
    return BallotRows(rows, sorted(ignored))


def read_ballots(path: str | os.PathLike[str]) -> BallotRows:
    """The ballots of a JSONL or CSV file (see the module docstring)."""
    source = Path(path)
    text, kind = _lines(source)
    return parse_ballots(_records(str(source), text, kind), str(source))


def rows_from_mappings(rows: Iterable[Mapping[str, object]], source: str = "row") -> BallotRows:
    """Ballots from mappings given in code; a bad one is named by its 1-based index."""
    return parse_ballots(((i, row) for i, row in enumerate(rows, start=1)), source)


def parse_labels(records: Iterable[tuple[int, Mapping[str, object]]], source: str) -> dict[str, Label]:
    """Item -> its :class:`Label`; raises :class:`BallotError` on the first bad row."""
    labels: dict[str, Label] = {}
    for number, row in records:
        where = f"{source}:{number}"
        item = str(_text(where, row, "item", required=True))
        best, order = row.get("best"), row.get("order")
        if (best in (None, "")) == (order in (None, "")):
            raise BallotError(f"{where}: give either 'best' (the right candidate) or 'order' (best first)")
        if order not in (None, ""):
            names = order if isinstance(order, list) else str(order).split(">")
            ranked = [str(name).strip() for name in names]
            if len(ranked) < 1 or not all(ranked) or len(set(ranked)) != len(ranked):
                raise BallotError(f"{where}: 'order' must list distinct candidates, best first, got {_shown(order)}")
        else:
            ranked = [str(_text(where, row, "best", required=True))]
        if item in labels:
            raise BallotError(f"{where}: item {item!r} is already labelled on line {labels[item].line}")
        labels[item] = Label(ranked, number)
    if not labels:
        raise BallotError(f"{source}: no labels (each row needs 'item' and 'best' or 'order')")
    return labels


def read_labels(path: str | os.PathLike[str]) -> dict[str, Label]:
    """The labels of a JSONL or CSV file (see the module docstring)."""
    source = Path(path)
    text, kind = _lines(source)
    return parse_labels(_records(str(source), text, kind), str(source))


def labels_from_mapping(labels: Mapping[str, str | Sequence[str]]) -> dict[str, Label]:
    """Labels given in code: item -> the best candidate, or the order best first."""
    return parse_labels(((i, {"item": item, "best": value} if isinstance(value, str) else
                          {"item": item, "order": list(value)})
                         for i, (item, value) in enumerate(labels.items(), start=1)), "labels")
