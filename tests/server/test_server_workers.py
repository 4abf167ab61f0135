"""``zkbluff serve --workers N`` (server/workers.py): two worker processes on one lobby (a
real Redis, tests/services.py), a room created on worker 0 reached through worker 1, worker
0 killed with SIGKILL and started again by the supervisor with its room, a stop by SIGTERM."""
from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

from zkbluff.protocol.signing import SigningKey
from zkbluff.server.protocol import sign_auth

STEP = 120  # seconds any one wait may take on a loaded 2-core machine
ZK = [sys.executable, "-m", "zkbluff", "serve"]


class Output:
    """A process's output lines, read in a thread as they come."""

    def __init__(self, proc, stream):
        self.proc, self.lines = proc, []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line)

    def wait_for(self, pattern, count=1):
        deadline = time.monotonic() + STEP
        while True:
            found = [m for m in (re.search(pattern, line) for line in list(self.lines)) if m]
            if len(found) >= count:
                return found
            assert time.monotonic() < deadline and self.proc.poll() is None, f"no {pattern!r} x{count} in {self.lines}"
            time.sleep(0.05)


async def _answer(url, msg, key):
    from websockets.asyncio.client import connect

    async with connect(url) as ws:
        challenge = json.loads(await ws.recv())["challenge"]
        await ws.send(json.dumps(sign_auth(key, msg, challenge)))
        return json.loads(await asyncio.wait_for(ws.recv(), STEP))


def ask(url, msg, key=None):
    return asyncio.run(_answer(url, msg, key or SigningKey.generate()))


def test_two_workers_share_one_lobby_and_a_killed_worker_comes_back_with_its_room(tmp_path, redis_url):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(ZK + ["--workers", "2", "--port", "0", "--data", tmp_path / "d", "--directory", redis_url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = Output(proc, proc.stdout), Output(proc, proc.stderr)
    try:
        listening = out.wait_for(r"listening on (ws://\S+) \(data \S+worker-(\d)", 2)
        urls = {int(m.group(2)): m.group(1) for m in listening}
        pids = {int(m.group(1)): int(m.group(2)) for m in err.wait_for(r"worker (\d): pid (\d+)", 2)}
        ann = SigningKey.generate()
        room = ask(urls[0], {"type": "create", "game": "bluffers", "name": "ann"}, ann)
        code = room["code"]
        assert ask(urls[1], {"type": "join", "code": code, "name": "bob"}) == \
            {"type": "redirect", "code": code, "url": urls[0]}
        os.kill(pids[0], signal.SIGKILL)  # worker 0 dies
        err.wait_for(r"worker 0 exited \(-9\); starting it again")
        again = out.wait_for(r"listening on (ws://\S+) \(data \S+worker-0", 2)[-1].group(1)
        assert again == urls[0]  # same port, same folder: the directory's address is right at once
        assert ask(urls[1], {"type": "join", "code": code, "name": "bob"})["url"] == urls[0]
        back = ask(urls[0], {"type": "join", "code": code, "name": "bob"})
        assert back["type"] == "room" and [m["name"] for m in back["members"]] == ["ann", "bob"]
        assert (tmp_path / "d" / "results.sqlite").exists()  # the workers' one results store
        restarted = int(err.wait_for(r"worker 0: pid (\d+)", 2)[-1].group(1))
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(90) == 0
    for pid in [*pids.values(), restarted]:  # every worker stopped with it
        assert not os.path.exists(f"/proc/{pid}") or "zombie" in open(f"/proc/{pid}/status").read().lower()


def test_workers_need_a_directory_and_a_worker_that_fails_at_start_stops_them_all(tmp_path, redis_url):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    alone = subprocess.run(ZK + ["--workers", "2", "--data", tmp_path / "a"], capture_output=True, text=True,
                           env=env, timeout=120)
    assert alone.returncode == 2 and "--directory" in alone.stderr
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "results.sqlite").write_bytes(b"not a database" * 100)  # a storage fault: exit 3
    broken = subprocess.run(ZK + ["--workers", "2", "--port", "0", "--data", tmp_path / "b", "--directory",
                                  redis_url], capture_output=True, text=True, env=env, timeout=180)
    assert broken.returncode == 3 and "failed at start (exit 3): stopping every worker" in broken.stderr
