"""A private PostgreSQL server in a temporary folder, for the tests and the storage benchmark.

It runs Debian's (or any) ``initdb`` and ``pg_ctl`` on a free port on
127.0.0.1, tuned for throwaway data (no fsync), and removes everything when
stopped. PostgreSQL refuses to run as root: under root the server runs as
the ``postgres`` system user, in a folder that user owns. Nothing in the
product imports this module.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

INSTALL_HINT = ("install PostgreSQL's server binaries (Debian/Ubuntu: apt-get install postgresql) "
                "or set COUNCIL_PG_BINDIR to a folder holding initdb and pg_ctl")
RUN_AS = "postgres"  # the system user Debian's package creates, for a test run as root


def find_pg_bindir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are: ``$COUNCIL_PG_BINDIR``, ``pg_config --bindir``, Debian's folders, PATH."""
    candidates: list[Path] = []
    if os.environ.get("COUNCIL_PG_BINDIR"):
        candidates.append(Path(os.environ["COUNCIL_PG_BINDIR"]))
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        if found.returncode == 0:
            candidates.append(Path(found.stdout.strip()))
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name)
                    if p.parent.name.isdigit() else 0, reverse=True)
    candidates.extend(debian)
    if shutil.which("initdb"):
        candidates.append(Path(shutil.which("initdb") or "").resolve().parent)
    return next((c for c in candidates if (c / "initdb").exists() and (c / "pg_ctl").exists()), None)


def require_pg_bindir() -> Path:
    """The binaries' folder; when missing, a test is skipped, or failed in CI (``CI=true``), saying how to install."""
    import pytest

    bindir = find_pg_bindir()
    if bindir is None:
        message = f"PostgreSQL binaries not found: {INSTALL_HINT}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return bindir


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A throwaway PostgreSQL server: ``with PostgresServer() as server: server.create_database("t1")``."""

    def __init__(self, bindir: Path | None = None) -> None:
        found = bindir or find_pg_bindir()
        if found is None:
            raise RuntimeError(f"PostgreSQL binaries not found: {INSTALL_HINT}")
        self.bindir = found
        self.port = _free_port()
        self.base_dir: Path | None = None
        self._settings = ""
        self._user = RUN_AS if os.geteuid() == 0 else None

    @property
    def url(self) -> str:
        """The server's maintenance database, as the superuser ``council`` (trust auth: no password)."""
        return self.database_url("postgres")

    def database_url(self, name: str) -> str:
        """The URL of database ``name`` on this server."""
        return f"postgresql://council@127.0.0.1:{self.port}/{name}"

    def _run(self, *command: str) -> None:
        argv = [str(self.bindir / command[0]), *command[1:]]
        if self._user is not None:
            argv = ["runuser", "-u", self._user, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
        if done.returncode != 0:
            log = self.base_dir / "server.log" if self.base_dir else None
            tail = log.read_text()[-2000:] if log is not None and log.exists() else ""
            raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{tail}")

    def start(self) -> PostgresServer:
        """initdb, then start the server and wait until it accepts connections."""
        # Under /tmp rather than pytest's folders: those are private to root, and the server runs as postgres.
        self.base_dir = Path(tempfile.mkdtemp(prefix="council-pg-"))
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.base_dir, entry.pw_uid, entry.pw_gid)
        data, sockets = self.base_dir / "data", self.base_dir
        self._run("initdb", "-D", str(data), "-U", "council", "--auth=trust", "-E", "UTF8", "--no-sync",
                  "--no-instructions")
        for attempt in range(3):
            self._settings = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={sockets} "
                              "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                              "-c max_connections=300 -c shared_buffers=32MB")
            try:
                self.resume()
                return self
            except RuntimeError as error:
                # The free port was taken between choosing it and binding it (parallel test runs): choose again.
                if "Address already in use" not in str(error) or attempt == 2:
                    raise
                self.port = _free_port()
        return self

    def halt(self) -> None:
        """Stop the server as an operator would (``pg_ctl stop -m fast``: sessions are cut), keeping its data.

        For outage tests: clients now get refused connections, and their
        pooled connections go stale; :meth:`resume` starts it again.
        """
        if self.base_dir is None:
            raise RuntimeError("the server was never started")
        self._run("pg_ctl", "stop", "-m", "fast", "-w", "-D", str(self.base_dir / "data"))

    def resume(self) -> None:
        """Start the server (again) on its data folder and port, and wait until it accepts connections."""
        if self.base_dir is None:
            raise RuntimeError("the server was never started")
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.base_dir / "data"),
                  "-l", str(self.base_dir / "server.log"), "-o", self._settings)

    def create_database(self, name: str) -> str:
        """Create database ``name`` and return its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)

    def stop(self) -> None:
        """Stop the server at once and delete its folder."""
        if self.base_dir is None:
            return
        try:
            if (self.base_dir / "data" / "postmaster.pid").exists():  # not when a test left it halted
                self._run("pg_ctl", "stop", "-m", "immediate", "-w", "-D", str(self.base_dir / "data"))
        finally:
            shutil.rmtree(self.base_dir, ignore_errors=True)
            self.base_dir = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()
