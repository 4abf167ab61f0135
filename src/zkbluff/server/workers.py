"""``zkbluff serve --workers N``: N server processes on one machine, so that its cores are
used (one process runs one asyncio loop: about 0.4 of a core at its busiest).

Worker ``i`` is an ordinary ``zkbluff serve`` on port ``PORT + i`` with its own data folder
``--data/worker-<i>`` (its rooms, transcripts and secrets, under its own lock), all of them
on one room directory (``--directory``: a join that reaches the wrong worker is redirected)
and one results store (``--results``, else one ``results.sqlite`` in ``--data`` that the
workers share: SQLite's WAL mode takes writers from many processes, one at a time).

This process only supervises: a worker that dies after it started (a crash, ``kill -9``)
is started again on the same port and folder, and resumes every match it held from its
transcripts, as after any restart (docs/hosting.md); a worker that fails at start (exit 2
or 3: bad options, a storage fault) stops them all with its exit code. SIGTERM or Ctrl-C
stops every worker the same way (each checkpoints its database).
"""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

#: a worker that exits sooner than this after its start failed to start (it is not restarted)
STARTUP_SECONDS = 5.0


def worker_ports(host: str, port: int, n: int) -> list[int]:
    """``PORT .. PORT + n - 1``; for port 0, n free ports picked now (a restarted worker
    keeps its port, so the directory's address for its rooms stays right)."""
    if port:
        return [port + i for i in range(n)]
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind((host, 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


def worker_argv(params: Mapping[str, Any], i: int, port: int) -> list[str]:
    """The ``zkbluff serve`` command line of worker ``i`` from the supervisor's options."""
    data = Path(params["data"])
    argv = [sys.executable, "-m", "zkbluff", "serve", "--port", str(port), "--data", str(data / f"worker-{i}"),
            "--results", str(params["results"] or data / "results.sqlite")]
    for name, value in params.items():
        if name in ("port", "data", "results", "workers", "public_url") or value is None:
            continue
        argv += [f"--{name.replace('_', '-')}", str(value)]
    return argv


class Supervisor:
    """The workers' processes: started, restarted when they die, stopped together."""

    def __init__(self, argvs: Sequence[list[str]], say: Callable[[str], None]):
        self.argvs, self.say = list(argvs), say
        self.procs: list[Optional[subprocess.Popen[bytes]]] = [None] * len(self.argvs)
        self.started_at = [0.0] * len(self.argvs)
        self.stopping = False

    def start(self, i: int) -> None:
        self.procs[i] = subprocess.Popen(self.argvs[i])
        self.started_at[i] = time.monotonic()
        self.say(f"worker {i}: pid {self.procs[i].pid}")  # type: ignore[union-attr]

    def stop(self, *_: Any) -> None:
        self.stopping = True

    def run(self) -> int:
        """Until SIGTERM or Ctrl-C (exit 0) or a worker that fails at start (its code)."""
        signal.signal(signal.SIGTERM, self.stop)
        for i in range(len(self.argvs)):
            self.start(i)
        code = 0
        try:
            while not self.stopping:
                time.sleep(0.2)
                for i, proc in enumerate(self.procs):
                    rc = None if proc is None else proc.poll()
                    if rc is None or self.stopping:
                        continue
                    if rc > 0 and time.monotonic() - self.started_at[i] < STARTUP_SECONDS:
                        self.say(f"worker {i} failed at start (exit {rc}): stopping every worker")
                        code, self.stopping = rc, True
                        break
                    self.say(f"worker {i} exited ({rc}); starting it again: it resumes its matches")
                    self.start(i)
        except KeyboardInterrupt:
            pass
        self.terminate()
        return code

    def terminate(self) -> None:
        live = [p for p in self.procs if p is not None and p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60
        for p in live:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
