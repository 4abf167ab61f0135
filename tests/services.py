"""Real PostgreSQL and Redis servers for the tests that need them (the scale-out stores).

Each server runs on loopback (127.0.0.1, a free port), with its data in a temporary folder
removed at the end; nothing of the machine's own services is used or touched. `make test`
installs both from Debian's packages when they are absent (the Makefile's ``services``
target). A test that needs one and finds it absent skips with the reason, except under CI
(``CI=true``), where the absence is a failure: :func:`missing`, which tests/conftest.py
uses for the node tools too.

PostgreSQL refuses to run as root: as root, its folder is handed to the ``postgres`` user
(made by Debian's package) and ``initdb``/``pg_ctl`` run as that user.
"""
from __future__ import annotations

import glob
import os
import pwd
import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import pytest


def missing(reason: str) -> None:
    """Skip with the reason; fail under CI, which must not skip (the Makefile installs it)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must not skip this test: the Makefile installs it)")
    pytest.skip(reason)


def free_port() -> int:
    """A free port below the kernel's ephemeral range, so that a server stopped and started
    again on it cannot find it taken by a client's own reconnect attempt meanwhile (as in
    tests/server/test_server_processes.py, which uses it)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(10000, max(10001, low))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in 10000..{low - 1}")


def pg_tool(name: str) -> Optional[str]:
    """A PostgreSQL server program: on PATH, else Debian's versioned folder (newest first)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name),
                         reverse=True):
        if os.access(Path(folder) / name, os.X_OK):
            return str(Path(folder) / name)
    return None


def _wait(ready: Any, what: str, bound: float = 60.0) -> None:
    deadline = time.monotonic() + bound
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up within {bound:.0f} s")
        time.sleep(0.05)


class Postgres:
    """One PostgreSQL cluster in a temporary folder, served on 127.0.0.1:``port``."""

    def __init__(self) -> None:
        initdb, self.pg_ctl = pg_tool("initdb"), pg_tool("pg_ctl")
        if not initdb or not self.pg_ctl:
            missing("PostgreSQL is not installed (initdb, pg_ctl; `make test` installs Debian's postgresql)")
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user is not None:
            try:
                pwd.getpwnam(self.user)
            except KeyError:
                missing("running as root and there is no 'postgres' user to run PostgreSQL as")
        self.root = Path(tempfile.mkdtemp(prefix="zkbluff-pg-"))
        if self.user is not None:
            shutil.chown(self.root, self.user, self.user)
        self.port = free_port()
        self._run(initdb, "-D", str(self.root / "data"), "-U", "zkbluff", "--auth=trust", "--encoding=UTF8",
                  "--locale=C", "-N")
        self.running = False
        self.start()

    def _run(self, *argv: str) -> None:
        proc = subprocess.run(argv, user=self.user, cwd=self.root, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"{Path(argv[0]).name} failed ({proc.returncode}): {proc.stderr[-2000:]}")

    def start(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c max_connections=60"
        assert self.pg_ctl
        self._run(self.pg_ctl, "-D", str(self.root / "data"), "-l", str(self.root / "log"), "-w", "-t", "60",
                  "-o", options, "start")
        self.running = True

    def stop(self) -> None:
        assert self.pg_ctl
        self._run(self.pg_ctl, "-D", str(self.root / "data"), "-m", "fast", "-w", "-t", "60", "stop")
        self.running = False

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://zkbluff@127.0.0.1:{self.port}/{dbname}"

    def fresh_database(self, name: str, icu_locale: Optional[str] = None) -> str:
        """A new, empty database on this server; its URL. ``icu_locale`` (``en-US``): the
        database's default collation is that ICU locale's, not byte order."""
        import psycopg

        collation = f" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '{icu_locale}'" if icu_locale else ""
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"{collation}')
        return self.url(name)

    def close(self) -> None:
        if self.running:
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


class Redis:
    """One redis-server on 127.0.0.1:``port``, no persistence, its folder temporary."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if not exe:
            missing("redis-server is not installed (`make test` installs Debian's redis-server)")
        self.root = Path(tempfile.mkdtemp(prefix="zkbluff-redis-"))
        self.port = free_port()
        self.argv = [exe, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.root),
                     "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"]
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(self._answers, "redis-server")

    def _answers(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
