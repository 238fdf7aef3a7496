"""A run's writes: the stage rows and the summary line, prepared on the event loop and written in batches.

:func:`prepare_stage` snapshots what a stage added (compressed, see
:mod:`council.storage.run_records`) and the run's line in ``runs`` as it
stands, so the run can go on while the writer commits; :class:`StageWrite`
writes any number of them in two statements. It knows the two run tables,
nothing of calibration, rubrics or conversations.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime

from council.result import CouncilResult
from council.storage.database import Session
from council.storage.run_records import Stage, stage_payload

HOST = socket.gethostname()


# Who is writing a run: this host and process, so a server starting up can tell runs of a dead process
# from runs another live replica is still working on.
def current_owner() -> str:
    """``host:pid`` of this process (read each time: a forked worker is another owner)."""
    return f"{HOST}:{os.getpid()}"



@dataclass(frozen=True, slots=True)
class StageWrite:
    """One stage of a run, serialized and ready to write: a snapshot, whatever the run does next."""

    run_id: str
    stage: Stage
    written_at: str
    payload: bytes
    #: The run's line in ``runs`` as it stands after this stage (every column, in table order).
    summary: tuple[object, ...]

    def apply(self, session: Session) -> None:
        """Write this stage (in the caller's transaction)."""
        StageWrite.apply_many(session, [self])

    @staticmethod
    def apply_many(session: Session, writes: list[StageWrite]) -> list[None]:
        """Write many stages, of one run or many, in two statements (in the caller's transaction).

        Each run's summary line takes its latest stage's figures; stage
        rows are added in the order given, which is the order they read back.
        """
        for start in range(0, len(writes), _ROWS_PER_STATEMENT):
            chunk = writes[start:start + _ROWS_PER_STATEMENT]
            latest = {write.run_id: write.summary for write in chunk}
            session.execute(
                f"INSERT INTO runs ({_RUN_COLUMNS}) VALUES {placeholders(len(latest), 11)} ON CONFLICT (run_id) DO "
                "UPDATE SET updated_at = excluded.updated_at, status = excluded.status, top_member = "
                "excluded.top_member, degraded = excluded.degraded, cost_usd = excluded.cost_usd, "
                "cost_partial = excluded.cost_partial", [value for summary in latest.values() for value in summary])
            session.execute(f"INSERT INTO run_stages (run_id, stage, written_at, payload) VALUES "
                            f"{placeholders(len(chunk), 4)}",
                            [value for w in chunk for value in (w.run_id, w.stage, w.written_at, w.payload)])
        return [None] * len(writes)


_RUN_COLUMNS = ("run_id, created_at, updated_at, status, question, top_member, degraded, simulated, owner, cost_usd, "
                "cost_partial")
# Within SQLite's limit of 32766 parameters a statement (and far from PostgreSQL's 65535).
_ROWS_PER_STATEMENT = 1000


def placeholders(rows: int, columns: int) -> str:
    row = "(" + ", ".join("?" * columns) + ")"
    return ", ".join([row] * rows)


def prepare_stage(result: CouncilResult, stage: Stage) -> StageWrite:
    """The row ``stage`` adds to the run, and the run's summary line as it now stands."""
    now = datetime.now(UTC).isoformat()
    top = result.final_answer.by if result.final_answer else (result.ranking[0].member if result.ranking else None)
    first_user = next((m.content for m in reversed(result.question) if m.role == "user"), "")
    cost = result.cost
    summary = (result.run_id, result.created_at.isoformat(), now, result.status, first_user[:500], top,
               int(result.degraded), int(result.simulated), current_owner(), cost.total_usd if cost else None,
               int(cost is not None and (cost.partial or cost.total_usd is None)))
    return StageWrite(result.run_id, stage, now, stage_payload(result, stage), summary)
