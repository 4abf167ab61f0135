"""A child process on a pseudo-terminal, for the tests of the terminal game: what it printed
so far, keys to type, and a loop that answers its prompts until a condition holds."""
from __future__ import annotations

import os
import select
import sys
import time
from typing import Callable, Mapping, Optional, Sequence

from repo_root import REPO_ROOT


class Pty:
    """``python argv…`` on a pty, importing this checkout's ``src`` (``env`` added to, and
    ``unset`` names removed from, its environment)."""

    def __init__(self, argv: Sequence[str], env: Optional[Mapping[str, str]] = None,
                 unset: Sequence[str] = ()) -> None:
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["PYTHONPATH"] = str(REPO_ROOT / "src")
            os.environ.update(env or {})
            for name in unset:
                os.environ.pop(name, None)
            os.execv(sys.executable, [sys.executable, *argv])
        self.buf = b""

    def _read(self, wait: float) -> bool:
        """Read what is there within ``wait`` s; False once the child has closed the pty."""
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return False
        self.buf += data
        return bool(data)

    def expect(self, marker: bytes, seconds: float = 30.0, after: int = 0) -> int:
        """Read until ``marker`` appears (past offset ``after``); its offset."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            at = self.buf.find(marker, after)
            if at >= 0:
                return at
            if not self._read(0.5):
                break
        raise AssertionError(f"{marker!r} not seen in {seconds} s; got {self.text()[-1500:]}")

    def drain(self, seconds: float) -> None:
        """Go on reading for ``seconds`` (what the child prints meanwhile)."""
        try:
            self.expect(b"\x00never\x00", seconds)
        except AssertionError:
            pass

    def run(self, until: Callable[[str], bool], seconds: float,
            answer: Optional[Callable[[str], str]] = None, prompt: str = " left] ") -> str:
        """Read until ``until(text)`` or ``seconds``; each new ``prompt`` seen is answered with
        ``answer(text so far)`` and Enter (none typed without ``answer``). The text."""
        answered, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < seconds and not until(self.text()):
            if not self._read(0.5):
                break
            prompts = self.text().count(prompt)
            if answer is not None and prompts > answered:
                answered = prompts
                self.type(answer(self.text()) + "\n")
        return self.text()

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def text(self) -> str:
        return self.buf.decode(errors="replace").replace("\r", "")

    def close(self) -> None:
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def run_cli(args: Sequence[str], until: Callable[[str], bool], seconds: float,
            answer: Optional[Callable[[str], str]] = None, env: Optional[Mapping[str, str]] = None,
            unset: Sequence[str] = ()) -> str:
    """``zkbluff args…`` in a pty until ``until(output)`` (or ``seconds``), then killed; its output."""
    child = Pty(["-m", "zkbluff", *args], env=env, unset=unset)
    try:
        return child.run(until, seconds, answer)
    finally:
        child.close()
