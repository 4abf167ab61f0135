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
#: the fields of a line: the first five always, the others where the line has them
REQUIRED_FIELDS = frozenset({"n", "prev", "seat", "action", "data"})
EVENT_FIELDS = REQUIRED_FIELDS | {"proofs", "sig", "at", "clock", "received"}
#: names no line may carry as a field of its own, or of its data beyond its action's fields:
#: the parties' secrets (a seat's entropy and its salt, a hand and its salt, the hand key, a
#: signing key's seed, a witness). A verifier adds the private witness inputs of the match's
#: statements. Such a line is refused as a leaked secret (``secret.leaked``).
SECRET_NAMES = frozenset({"secret", "secrets", "seed", "salt", "entropy", "hand", "handKey", "hand_key",
                          "opening", "witness", "private"})


def secret_fields(names: Any, extra: Any = ()) -> list[str]:
    """The names among ``names`` that name a secret: one of :data:`SECRET_NAMES` or of
    ``extra`` (a game's private witness input names), or one ending in ``_salt`` / ``Salt``."""
    return sorted(k for k in names if isinstance(k, str) and
                  (k in SECRET_NAMES or k in extra or k.endswith(("_salt", "Salt"))))


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
        if self.path is not None:  # the file first: a write it refuses leaves this writer (and the file) as it was
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                size = os.lseek(fd, 0, os.SEEK_END)
                try:
                    data = memoryview((line + "\n").encode("utf-8"))
                    while data:
                        data = data[os.write(fd, data):]
                    os.fsync(fd)
                except BaseException:
                    _cut_back(fd, size)
                    raise
            finally:
                os.close(fd)
        self.lines.append(line)
        self.events.append(event)
        self.head = line_hash(line)
        return event


def _cut_back(fd: int, size: int) -> None:
    """Cut a file a line's write failed on back to the ``size`` it had (a part of the line may
    have reached it); best effort: the disk that refused the line may refuse this too."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass


def read_lines(path: Union[str, Path]) -> list[str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedInput(f"transcript {path}: {exc}", code="transcript.unreadable") from None
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
            raise MalformedInput(f"transcript line {i}: not JSON ({exc.msg})", line=i, code="line.json") from None
        except (ValueError, RecursionError) as exc:  # a number of over 4300 digits; arrays nested too deep
            raise MalformedInput(f"transcript line {i}: not JSON this reader takes ({str(exc).split(':')[0]})",
                                 line=i, code="line.json") from None
        if not isinstance(event, dict):
            raise MalformedInput(f"transcript line {i}: expected a JSON object, got {type(event).__name__}",
                                 line=i, code="line.json")
        leaked = secret_fields(set(event) - EVENT_FIELDS)
        if leaked:
            raise MalformedInput(f"transcript line {i}: field(s) {leaked} named as secrets: no line may carry a "
                                 f"secret", line=i, code="secret.leaked")
        if not REQUIRED_FIELDS <= set(event) or not set(event) <= EVENT_FIELDS:
            raise MalformedInput(f"transcript line {i}: fields {sorted(event)}, expected an event with n, prev, "
                                 f"seat, action, data (and proofs, sig, at, clock)", line=i, code="line.fields")
        if canonical(event) != line:
            raise TranscriptError("not in canonical form (the line was edited)", line=i, code="line.canonical")
        if event["n"] != i or type(event["n"]) is not int:  # 2.0 or true is not the number 2 or 1
            raise TranscriptError(f"numbered {event['n']!r:.20}, expected {i} (a line was removed or reordered)",
                                  line=i, code="line.number")
        if event["prev"] != prev:
            raise TranscriptError("does not chain to the line before (hash mismatch)", line=i, code="line.chain")
        prev = line_hash(line)
        yield event
