"""A person's terminal for a networked seat: prompts that never hold up the table.

A seat's client must keep following the table while its person thinks: the referee's
clock may run out (Bluffers' move timer, a calling window, an idle limit), and then the
seat's own client owes the automatic line (its proof made on this machine) or must see
the timeout and carry on. So the game's prompt runs in a thread of its own, and the client
calls it off when the table moves on (:meth:`Terminal.cancel`).

One daemon thread reads the terminal's lines (``read_line``: ``sys.stdin.readline`` by
default, injected in tests) into a queue; :meth:`Terminal.ask` shows its text and waits
for the next line, or raises :class:`PromptCancelled` once called off. A line typed for a
prompt that was called off is dropped, not given to the next prompt. Being a daemon, a
reader still waiting when the match ends does not keep the process alive.
"""
from __future__ import annotations

import os
import queue
import sys
import threading
from typing import Any, Callable, Optional

#: how often a waiting prompt looks whether it was called off (seconds)
POLL_SECONDS = 0.05


class PromptCancelled(Exception):
    """The prompt was called off: the table moved on while it waited (not an error of
    the person's: the client carries on from the new line)."""


def _stdin_line() -> str:
    return sys.stdin.readline()


def discard_typeahead(stream: Any = None) -> bool:
    """Drop what was typed before a prompt was shown (keys pressed during a proof must not
    answer the next question): the terminal's pending input is flushed
    (``termios.tcflush``). Only for a terminal; input from a file or a pipe (a script) is
    kept. True if something could be flushed."""
    stream = sys.stdin if stream is None else stream
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return False
        import termios

        termios.tcflush(fd, termios.TCIFLUSH)
    except (AttributeError, OSError, ValueError, ImportError):
        return False
    return True


class Terminal:
    """Lines typed at the terminal, for prompts that can be called off (see the module).
    ``read_line`` returns one line ('' at the end of input); ``show`` prints a prompt."""

    def __init__(self, read_line: Callable[[], str] = _stdin_line, show: Callable[[str], None] = print):
        self.read_line, self.show = read_line, show
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._reader: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self._round = 0  # bumped by cancel(): a prompt of an older round is called off
        #: prompts shown, and prompts called off (for the person's display and for tests)
        self.asked = 0
        self.cancelled = 0
        #: the text of the prompt waiting for an answer now (None: no prompt is open)
        self.waiting: Optional[str] = None

    def _read(self) -> None:
        while True:
            try:
                line = self.read_line()
            except (EOFError, OSError, ValueError):
                line = ""
            if not line:
                self._lines.put(None)  # the end of input
                return
            self._lines.put(line.rstrip("\r\n"))

    def ask(self, text: str) -> str:
        """Show ``text`` and return the next line typed. Raises :class:`PromptCancelled` if
        :meth:`cancel` is called meanwhile, :class:`EOFError` at the end of input."""
        with self._lock:
            mine = self._round
            if self.read_line is _stdin_line and discard_typeahead():  # a person at a terminal:
                self._drop_queued()                                     # nothing typed ahead answers this
            if self._reader is None:
                self._reader = threading.Thread(target=self._read, name="zkbluff-terminal", daemon=True)
                self._reader.start()
            self.asked += 1
        self.show(text)
        self.waiting = text
        try:
            return self._answer(mine)
        finally:
            self.waiting = None

    def say_between(self, say: Callable[[str], None], text: str) -> None:
        """Say ``text`` (a room's news) without writing over an open prompt: on a line of
        its own, and the prompt shown again after it."""
        waiting = self.waiting
        if waiting is None:
            say(text)
            return
        say("")  # (the prompt's line ends here)
        say(text)
        self.show(waiting)

    def _answer(self, mine: int) -> str:
        while True:
            if self._round != mine:
                raise PromptCancelled()
            try:
                line = self._lines.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue
            if self._round != mine:  # typed for the prompt that was called off
                if line is None:
                    self._lines.put(None)
                raise PromptCancelled()
            if line is None:
                self._lines.put(None)  # every later prompt sees the end too
                raise EOFError("no more input")
            return line

    def _drop_queued(self) -> None:
        """Drop the lines read but not yet asked for (the end of input is kept)."""
        kept_end = False
        while True:
            try:
                kept_end = self._lines.get_nowait() is None or kept_end
            except queue.Empty:
                break
        if kept_end:
            self._lines.put(None)

    def cancel(self) -> None:
        """Call off the prompt waiting now (if any); lines typed for it are dropped."""
        with self._lock:
            self._round += 1
            self.cancelled += 1
            self._drop_queued()


def in_thread(fn: Callable[..., Any], *args: Any) -> "Any":
    """Run ``fn(*args)`` in a daemon thread; an asyncio future of its result (or its
    exception). Unlike the loop's default executor, a thread still blocked (a prompt nobody
    answers) neither delays the loop's shutdown nor keeps the process alive."""
    import asyncio

    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def work() -> None:
        try:
            ok, value = True, fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task as is
            ok, value = False, exc
        try:
            loop.call_soon_threadsafe(settle, ok, value)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    threading.Thread(target=work, name="zkbluff-policy", daemon=True).start()
    return future
