"""A SQLite file held locked by another process, as another writer (a CLI, a backup) would hold it.

For the outage tests and the cache-outage benchmark: a child process opens
the file, takes ``BEGIN EXCLUSIVE`` and keeps it until released. In WAL
mode (Council's) readers still read; every writer waits for the lock.
Nothing in the product imports this module.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

#: How long the holder may take to let go once told to (it only rolls back).
RELEASE_WAIT_S = 60.0

# The other process: opens the file, takes SQLite's exclusive lock, says so, and holds it until stdin closes.
_HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
connection.execute("ROLLBACK")
"""


@contextlib.contextmanager
def sqlite_locked_elsewhere(path: Path | str) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``BEGIN EXCLUSIVE`` on the SQLite file at ``path`` until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        said = holder.stdout.readline().strip() if holder.stdout is not None else ""
        if said != "locked":
            raise RuntimeError(f"the process meant to lock {path} did not (it said {said!r})")
        yield holder
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=RELEASE_WAIT_S)
        if holder.stdout is not None:
            holder.stdout.close()
