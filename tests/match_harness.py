"""A shared match harness for whole-match tests of any registered game: a seeded match
(:func:`seeded_match`: ``open_match(..., seed=)``, every party's randomness fixed, the
referee's clock a :class:`StepClock` the test moves) played by the game's house bots to the
end (:func:`play_to_end`), and the generic cases every game must pass:

- :func:`check_tampered_line`: one named field of a line changed and not signed again: the
  verifier refuses that line (its signature);
- :func:`check_resigned_line`: the same change signed again by the line's own party (and
  received again by the referee): still refused at that line (the proof or the rules pin
  the field), while the line signed again unchanged verifies (the twin);
- :func:`check_timeout`: the seat to move is timed out only strictly after its deadline,
  by the referee, and the match still ends and verifies;
- :func:`check_replay`: the same seed, clock and bots play the same match, line by line
  (every action, seat, time and value; not yet the sealed ciphertexts), and it verifies.

tests/games/test_every_game_harness.py runs them for every registered game, so a new game
gets them by registering; a game's own tests call them with their own field and options.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from zkbluff.errors import TranscriptError
from zkbluff.games.engine.table import Table, open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.registry import spec_class
from zkbluff.protocol.signing import SigningKey, check_line_signature, sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical

#: where a harness clock starts (any fixed time: the same seed and moves then give the same stamps)
START = 1_800_000_000.0


class StepClock:
    """The referee's (and every party's) clock: fixed until the test moves it."""

    def __init__(self, now: float = START):
        self.now = now

    def __call__(self) -> float:
        return self.now


def seeded_match(game: str, options: Optional[dict[str, Any]] = None, seed: int = 1,
                 path: Optional[Path] = None, **kwargs: Any) -> tuple[Table, StepClock]:
    """A new match of ``game`` with every party's randomness fixed by ``seed``."""
    clock = StepClock()
    tab = open_match(game, options, transcript=path, seed=seed, clock=clock, overwrite=True, **kwargs)
    return tab, clock


def bots_for(tab: Table, seed: int) -> list[Any]:
    return [tab.spec.house_bot(seed + i) for i in range(len(tab.seats))]


def step(tab: Table, clock: StepClock, bots: list[Any], rng: random.Random) -> None:
    """One move of the bots (as ``zkbluff demo`` plays them), or the clock moved past the
    deadline a waiting table runs to (a calling window) and polled."""
    seat = tab.to_move
    if seat is None:  # the table waits on the clock: any seat may act before the deadline
        waiting = [s for s in range(len(tab.seats)) if tab.rules.legal_actions(s)]
        rng.shuffle(waiting)
        for s in waiting:
            intent = bots[s].act(tab.observation(s))
            if intent is not None:
                tab.move(s, intent)
                return
        clock.now = max(clock.now, tab.referee.deadline + 1.0)
        tab.poll()
        return
    clock.now = max(clock.now, tab.view.paused_until)  # a pause the rules hold play for
    tab.move(seat, bots[seat].act(tab.observation(seat)))


def play_to_end(tab: Table, clock: StepClock, bot_seed: int = 11, max_steps: int = 5000,
                until: Optional[Callable[[Table], bool]] = None) -> Table:
    """The house bots play ``tab`` to its end (or until ``until(tab)``)."""
    bots, rng = bots_for(tab, bot_seed), random.Random(bot_seed)
    for _ in range(max_steps):
        if tab.over or (until is not None and until(tab)):
            return tab
        step(tab, clock, bots, rng)
    raise AssertionError(f"{tab.spec.game}: not over after {max_steps} steps")


def finished_match(game: str, path: Path, options: Optional[dict[str, Any]] = None, seed: int = 1,
                   bot_seed: int = 11, **kwargs: Any) -> Table:
    tab, clock = seeded_match(game, options, seed, path, **kwargs)
    return play_to_end(tab, clock, bot_seed)


# ---------------------------------------------------------------- transcripts

def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def write(path: Path, events: list[dict[str, Any]]) -> Path:
    Path(path).write_text("".join(canonical(e) + "\n" for e in events))
    return Path(path)


def party_key(tab: Table, event: dict[str, Any]) -> SigningKey:
    """The key of the party that signed ``event`` (whichever of the table's parties it is)."""
    for key in [tab.referee.key, tab.dealer.key] + [s.key for s in tab.seats]:
        try:
            check_line_signature(event, key.public_hex, "party")
            return key
        except Exception:  # noqa: BLE001 - not this party's
            continue
    raise AssertionError(f"line {event.get('n')}: signed by none of the table's parties")


def signed_again(tab: Table, event: dict[str, Any], original: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """``event`` signed again by the party that signed ``original`` (itself by default),
    and its receipt (if any) by the referee."""
    key = party_key(tab, original or event)
    body = sign_line(key, {k: v for k, v in event.items() if k not in ("sig", "received")})
    if "received" in event:
        body = sign_receipt(tab.referee.key, body, event["received"]["at"])
    return body


def find_line(events: list[dict[str, Any]], action: Optional[str], field: str) -> int:
    """The index of the first line of ``action`` (any seat's line when None) whose data
    holds ``field``."""
    for k, e in enumerate(events):
        if (action is None and e.get("seat") is not None or e["action"] == action) \
                and isinstance(e.get("data"), dict) and field in e["data"]:
            return k
    raise AssertionError(f"no {action or 'seat'} line with data field {field!r}")


def changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "0"
    if isinstance(value, list):
        return value[1:] if value else [0]
    return None if value is not None else 0


def tampered(events: list[dict[str, Any]], i: int, field: str) -> list[dict[str, Any]]:
    out = json.loads(json.dumps(events))
    out[i]["data"][field] = changed(out[i]["data"][field])
    return out


# ---------------------------------------------------------------- the generic cases

def check_tampered_line(tab: Table, path: Path, tmp: Path, action: Optional[str], field: str) -> int:
    """``field`` of the first ``action`` line changed, not signed again: refused at that line."""
    events = lines(path)
    i = find_line(events, action, field)
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp / "tampered.jsonl", tampered(events, i, field)))
    assert exc.value.line == i + 1, exc.value
    assert verify_transcript(write(tmp / "untampered.jsonl", events))["lines"] == len(events)  # the twin
    return i


def check_resigned_line(tab: Table, path: Path, tmp: Path, action: Optional[str], field: str) -> int:
    """The same change signed again by the line's own party: still refused at that line;
    the line signed again unchanged (the transcript up to it) verifies."""
    events = lines(path)
    i = find_line(events, action, field)
    forged = events[:i] + [signed_again(tab, tampered(events, i, field)[i], events[i])]
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp / "resigned.jsonl", forged))
    assert exc.value.line == i + 1, exc.value
    twin = events[:i] + [signed_again(tab, events[i])]
    assert twin[-1] == events[i]  # Ed25519 is deterministic: the same line, the same signature
    assert verify_transcript(write(tmp / "resigned-twin.jsonl", twin))["lines"] == i + 1
    return i


def check_timeout(game: str, tmp: Path, options: Optional[dict[str, Any]] = None, seed: int = 1,
                  moves: int = 2, bot_seed: int = 11, **kwargs: Any) -> dict[str, Any]:
    """After ``moves`` bot moves, the seat to move is not timed out at its deadline, then is
    (by the referee, on a line of its own) just after it; the match ends and verifies."""
    path = tmp / "timeout.jsonl"
    tab, clock = seeded_match(game, options, seed, path, **kwargs)
    bots, rng = bots_for(tab, bot_seed), random.Random(bot_seed)
    made = 0
    while made < moves or tab.to_move is None:
        assert not tab.over, f"{game}: over before a seat was to move after {moves} moves"
        step(tab, clock, bots, rng)
        made += 1
    seat, before = tab.to_move, len(tab.writer.events)
    clock.now = max(clock.now, tab.view.paused_until)
    deadline = tab.referee.deadline
    assert deadline != float("inf"), f"{game}: seat {seat} to move has no deadline"
    clock.now = deadline
    assert tab.poll() is None and len(tab.writer.events) == before  # at the deadline: not yet
    clock.now = deadline + 1.0
    line = tab.poll()
    assert line is not None and line["n"] == before + 1
    assert party_key(tab, line).public_hex == tab.referee.key.public_hex  # the referee's line
    assert json.dumps(seat) in json.dumps(line["data"]) or line.get("seat") in (None, seat)
    play_to_end(tab, clock, bot_seed)
    assert verify_transcript(path)["lines"] == len(lines(path))
    return line


#: line data that may differ on a replay in one process: keys and what sealing draws (ciphertexts, their proofs)
UNFIXED = frozenset({"parties", "ephemeral", "proof"})


def play_of(events: list[dict[str, Any]]) -> list[Any]:
    """What a match played, line by line: each line's number, action, seat, time and data,
    sealed fields (ciphertexts) left out, and every party's key in the header."""
    def data(e: dict[str, Any]) -> Any:
        d = e.get("data")
        return {k: v for k, v in d.items() if not k.startswith("sealed") and k not in UNFIXED} \
            if isinstance(d, dict) else d
    return [(e["n"], e["action"], e.get("seat"), e.get("at"), data(e)) for e in events]


def check_replay(game: str, tmp: Path, original: Path, options: Optional[dict[str, Any]] = None, seed: int = 1,
                 bot_seed: int = 11, **kwargs: Any) -> None:
    """The same seed, clock and bots again: the same match, line by line (every action,
    seat, time and value; the sealed ciphertexts may differ: in one process a first match draws pycryptodome bytes a second one does not), and
    it verifies."""
    again = tmp / "replay.jsonl"
    finished_match(game, again, options, seed, bot_seed, **kwargs)
    assert play_of(lines(again)) == play_of(lines(original))
    verify_transcript(again)


def game_house_bot(game: str) -> Any:
    return spec_class(game).house_bot
