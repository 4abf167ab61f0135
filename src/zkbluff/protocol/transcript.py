"""Hash-chained JSON Lines transcripts.

Each line is one event, a JSON object with ``n`` (1-based line number), ``prev`` (the
SHA-256 hex of the previous line's bytes; 64 zeros for the first), ``seat``, ``action``,
``data``, when the event carries any, ``proofs`` (a list of proof envelopes,
:mod:`zkbluff.protocol.envelope`) and ``sig`` (the signature of the party that made the
line, :mod:`zkbluff.protocol.signing`). Lines are written canonically
(sorted keys, no spaces) and flushed to disk one by one, so a crash loses nothing that
was already played.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from zkbluff.errors import MalformedInput, TranscriptError

GENESIS = "0" * 64


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


class TranscriptWriter:
    """Appends events to a file (or only to memory when ``path`` is None)."""

    def __init__(self, path: Optional[Union[str, Path]] = None, events: Optional[list[dict[str, Any]]] = None,
                 overwrite: bool = False):
        self.path = Path(path) if path is not None else None
        self.lines: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.head = GENESIS
        if events:
            for e in events:  # resuming: keep what is there
                line = canonical(e)
                self.lines.append(line)
                self.events.append(e)
                self.head = line_hash(line)
        elif self.path is not None:
            if not overwrite and self.path.exists() and self.path.stat().st_size:
                raise MalformedInput(f"transcript {self.path} already holds a match: resume it or choose another file")
            self.path.write_text("", encoding="utf-8")

    @property
    def next_line(self) -> int:
        return len(self.lines) + 1

    def draft(self, seat: Optional[int], action: str, data: dict[str, Any],
              proofs: Optional[list[dict[str, Any]]] = None) -> dict[str, Any]:
        """The next line's event (numbered and linked to the head), not yet written or signed."""
        event = {"n": self.next_line, "prev": self.head, "seat": seat, "action": action, "data": data}
        if proofs:
            event["proofs"] = proofs
        return event

    def append(self, seat: Optional[int], action: str, data: dict[str, Any],
               proofs: Optional[list[dict[str, Any]]] = None) -> dict[str, Any]:
        return self.append_event(self.draft(seat, action, data, proofs))

    def append_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """Write a whole event (signed by its party); it must be the next line."""
        if event.get("n") != self.next_line or event.get("prev") != self.head:
            raise MalformedInput(f"event numbered {event.get('n')!r}, expected the next line {self.next_line} "
                                 f"linked to the head")
        line = canonical(event)
        self.lines.append(line)
        self.events.append(event)
        self.head = line_hash(line)
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
        return event


def read_lines(path: Union[str, Path]) -> list[str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedInput(f"transcript {path}: {exc}") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def parse_chain(lines: list[str]) -> Iterator[dict[str, Any]]:
    """Yield each event after checking its JSON, its number and its link to the line
    before; raise :class:`TranscriptError` (line number) or :class:`MalformedInput`."""
    prev = GENESIS
    for i, line in enumerate(lines, start=1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MalformedInput(f"transcript line {i}: not JSON ({exc.msg})") from None
        if not isinstance(event, dict) or not {"n", "prev", "seat", "action", "data"} <= set(event) \
                or not set(event) <= {"n", "prev", "seat", "action", "data", "proofs", "sig", "at", "clock"}:
            raise MalformedInput(f"transcript line {i}: expected an event with n, prev, seat, action, data "
                                 f"(and proofs, sig, at, clock)")
        if canonical(event) != line:
            raise TranscriptError("not in canonical form (the line was edited)", line=i)
        if event["n"] != i:
            raise TranscriptError(f"numbered {event['n']}, expected {i} (a line was removed or reordered)", line=i)
        if event["prev"] != prev:
            raise TranscriptError("does not chain to the line before (hash mismatch)", line=i)
        prev = line_hash(line)
        yield event
