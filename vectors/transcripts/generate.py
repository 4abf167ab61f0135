"""Generates the transcript vectors: whole matches of every game, played by house bots
with real Groth16 proofs under the pinned project keys, and mutations of them, each with
the result a verifier must give (valid, or invalid with the first failing line and its
reason code).

Two steps, one command (run from the repository root):

    python vectors/transcripts/generate.py --matches   # play the base matches, then derive
    python vectors/transcripts/generate.py             # derive vectors.json from the stored bases
    python vectors/transcripts/generate.py --check     # derive again and fail on any difference

``--matches`` plays every base match (or only the names given) and writes
``<name>.jsonl`` (the transcript) and ``<name>.parties.json`` (the parties' Ed25519 key
seeds and one secret of each seat: test data, never a real match's). The matches are
seeded (the bots, the parties' keys, their entropies and salts), but sealed messages and
proofs still carry fresh randomness, so a new run gives new, equally valid bases: CI
checks the bases, it does not regenerate them. Everything else is derived from the stored
bases deterministically (Ed25519 signatures are deterministic), so CI regenerates
``vectors.json`` and diffs it (``--check``).

Each expected result follows from how the mutation is made (a line removed: the next line
is numbered wrong there), never from running the verifier: the tests run the verifier and
compare. See README.md beside this file and docs/writing-your-own-verifier.md.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VECTORS = HERE / "vectors.json"
SCHEMA_VERSION = 1

#: bases from before the referee's receipts (no ``clock`` in the header, no ``received`` on any
#: line), kept as they were played: a transcript from before receipts still verifies
LEGACY: list[tuple[str, str, dict[str, str], int]] = [
    ("legacy-proof-or-bluff-casual", "proof-or-bluff", {"mode": "casual"}, 11),
]

#: the base matches: name, game, options, seed (one per table kind or player count)
BASES: list[tuple[str, str, dict[str, str], int]] = [
    ("proof-or-bluff-casual", "proof-or-bluff", {"mode": "casual"}, 11),
    ("five-up-two-down-casual", "five-up-two-down", {"mode": "casual"}, 12),
    ("cheat-3", "cheat", {"players": "3", "hands": "3", "window": "1"}, 13),
    ("bluffers-2", "bluffers", {"players": "2"}, 14),
    ("bluffers-3", "bluffers", {"players": "3"}, 22),
    ("mind-bluff", "mind-bluff", {"humans": "none"}, 20),  # a 1–1 series: game 3 (its draw, its coin's pause)
]

#: bases under the rules version 1 (the header names ``rules: "<game>/1"``, the end line carries
#: its reason code ``<game>.<code>``, its words unchecked), as every new match is played; the bases
#: above are from before (no ``rules``: the legacy ``<game>/0``, the end line's words compared)
#: and are kept as they were played (``--matches`` on one of them would replay it under /1)
RULES_1: list[tuple[str, str, dict[str, str], int]] = [
    ("proof-or-bluff-rules-1", "proof-or-bluff", {"mode": "casual"}, 31),
    ("bluffers-rules-1", "bluffers", {"players": "3"}, 32),
]


def game_bases() -> list[tuple[str, str, dict[str, str], int]]:
    """The bases a game folder names itself, after the list above: ``TRANSCRIPT_BASES`` (the
    same tuples) in the module of each registered game's spec, in registry order. A new
    game adds its bases in its own folder; this file does not change."""
    from zkbluff.games.registry import game_names, spec_class

    out: list[tuple[str, str, dict[str, str], int]] = []
    for game in game_names():
        module = sys.modules[spec_class(game).__module__]
        for base in getattr(module, "TRANSCRIPT_BASES", ()):
            name, named_game, options, seed = base
            if named_game != game or name in {b[0] for b in BASES + LEGACY + RULES_1 + out}:
                raise ValueError(f"{module.__name__}.TRANSCRIPT_BASES: {name!r} must be a new base of {game!r}")
            out.append((name, named_game, dict(options), seed))
    return out


def all_bases() -> list[tuple[str, str, dict[str, str], int]]:
    """Every base match that is played again: the lists above (not the legacy one), then the game folders' own."""
    return BASES + RULES_1 + game_bases()


# ---------------------------------------------------------------------------- the matches

class Clock:
    """The referee's clock, run by the driver: a second passes before each move."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def seeded_parties(seed: int) -> Iterator[None]:
    """Every party's Ed25519 key and every ``secrets`` draw from generators seeded with
    ``seed``: a replayable match, and for that reason never a fair one."""
    from zkbluff.cli.common import seeded_randomness
    from zkbluff.protocol.signing import SigningKey

    rng = random.Random(f"zkbluff-vectors-keys-{seed}")
    original = SigningKey.__dict__["generate"]
    SigningKey.generate = classmethod(lambda cls: cls.from_secret_hex(rng.randbytes(32).hex()))  # type: ignore
    try:
        with seeded_randomness(seed):
            yield
    finally:
        SigningKey.generate = original  # type: ignore


def _a_secret(seat: Any) -> dict[str, str]:
    """One secret this seat holds (its deal entropy, a salt): what the leak vector puts on a line."""
    from zkbluff.protocol.transcript import secret_fields

    for where in (seat.deal_secrets, seat.private):
        for name in secret_fields(where):
            value = where[name]
            if isinstance(value, (int, str)) and str(value).isdigit():
                return {"name": name, "value": str(value)}
    return {"name": "salt", "value": "0"}


def play_match(name: str, game: str, options: dict[str, str], seed: int, out: Path,
               say: Callable[[str], None] = print) -> None:
    """Play one base match with house bots in every seat and write ``<name>.jsonl`` and
    ``<name>.parties.json`` into ``out``."""
    from zkbluff.games.engine.table import open_match

    clock = Clock()
    with seeded_parties(seed), tempfile.TemporaryDirectory() as tmp:
        tab = open_match(game, options, None, transcript=Path(tmp) / "m.jsonl", match_id=f"vectors-{name}",
                         clock=clock)
        n = tab.spec.n_seats
        bots = [tab.spec.house_bot(seed * 10 + i) for i in range(n)]
        rng = random.Random(seed)
        for _ in range(5000):
            if tab.over:
                break
            seat = tab.to_move
            if seat is None:  # the table waits on the clock: any seat may act before the deadline
                seats = [i for i in range(n) if tab.rules.legal_actions(i)]
                rng.shuffle(seats)
                for s in seats:
                    intent = bots[s].act(tab.observation(s))
                    if intent is not None:
                        tab.move(s, intent)
                        break
                else:
                    clock.now = tab.referee.deadline + 0.5  # a timeout comes strictly after its deadline
                    if tab.poll() is None:
                        raise RuntimeError(f"{name}: the table waits, and its deadline brings no line")
            else:  # a second before each move, or to the end of a pause the rules hold play for
                clock.now = max(clock.now + 1.0, tab.view.paused_until)
                tab.move(seat, bots[seat].act(tab.observation(seat)))
        else:
            raise RuntimeError(f"{name}: the match did not end")
        lines = [json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for e in tab.writer.events]
        parties = {
            "comment": "test data: the Ed25519 key seeds of this vector match's parties (seeded, so never a fair "
                       "match), one secret of each seat and its deal secrets; the mutations are re-signed with "
                       "these keys",
            "referee": tab.referee.key.secret_hex(), "dealer": tab.dealer.key.secret_hex(),
            "seats": [{"key": s.key.secret_hex(), "secret": _a_secret(s), "deal": s.deal_secrets} for s in tab.seats],
        }
    (out / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / f"{name}.parties.json").write_text(json.dumps(parties, indent=1) + "\n", encoding="utf-8")
    say(f"{name}: {len(lines)} lines, {sum(len(x) for x in lines) // 1024} KiB")


# ---------------------------------------------------------------------------- the mutations

def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Base:
    """A stored base transcript, its parties' keys, and what the mutations need to know
    about its lines (who made each, which carry proofs)."""

    def __init__(self, name: str, folder: Path = HERE):
        from zkbluff.games.engine.referee import Referee
        from zkbluff.games.engine.spec import Role
        from zkbluff.protocol.signing import SigningKey

        self.name = name
        self.text = (folder / f"{name}.jsonl").read_text(encoding="utf-8")
        self.lines = self.text.splitlines()
        self.events = [json.loads(x) for x in self.lines]
        parties = json.loads((folder / f"{name}.parties.json").read_text(encoding="utf-8"))
        self.referee_key = SigningKey.from_secret_hex(parties["referee"])
        self.dealer_key = SigningKey.from_secret_hex(parties["dealer"])
        self.seat_keys = [SigningKey.from_secret_hex(s["key"]) for s in parties["seats"]]
        self.secrets = [s["secret"] for s in parties["seats"]]
        self.deal_secrets = [s.get("deal", {}) for s in parties["seats"]]
        # who is entitled to each line, and who is to move before it (for choosing where to
        # mutate only; the expected results follow from the mutation itself)
        ref = Referee(self.events[0], verify_now=False)
        self.header = self.events[0]["data"]
        self.role = {}
        self.to_move_before: dict[int, Any] = {}
        #: per line with proofs, the names of the publics the table pins in its first proof
        self.pinned: dict[int, list[str]] = {}
        for e in self.events[1:]:
            self.to_move_before[e["n"]] = ref.rules.to_move
            self.role[e["n"]] = ref.role_of(e["action"])
            if e.get("proofs") and e["action"] not in ref.spec.deal.line_roles:
                action = ref.spec.action_class(e["action"]).from_data(e["data"])
                demands = ref.spec.demand(ref.rules, ref.ledger, e["seat"], action)
                self.pinned[e["n"]] = sorted(demands[0].pinned)
            ref.apply(e)
        self.Role = Role
        self.role_of = ref.role_of
        self.spec_deal_lines = set(ref.spec.deal.line_roles)
        self.statement_private = {k: _private(k) for k in self.header["keys"]}

    def result_after(self, lines: list[str]) -> dict[str, Any]:
        """The end line's data the referee writes after ``lines`` (which the rules or the deal
        have ended): what an honest referee would write there."""
        from zkbluff.games.engine.referee import Referee

        ref = Referee(json.loads(lines[0]), verify_now=False)
        for x in lines[1:]:
            ref.apply(json.loads(x))
        result = ref.result()
        assert result is not None, "the match is not over"
        return ref.end_data(result)  # under the rules the header names

    def ev(self, n: int) -> dict[str, Any]:
        return copy.deepcopy(self.events[n - 1])

    def key_for(self, event: dict[str, Any]) -> Any:
        """The key of the party entitled to a line of this kind (wherever it now stands)."""
        if event["action"] == "header":
            return self.referee_key
        role = self.role_of(event["action"])
        if role is self.Role.REFEREE:
            return self.referee_key
        if role is self.Role.DEALER:
            return self.dealer_key
        return self.seat_keys[event["seat"]]

    def seat_lines(self, proofs: Optional[bool] = None) -> list[int]:
        return [e["n"] for e in self.events[1:] if self.role[e["n"]] is self.Role.SEAT and
                (proofs is None or bool(e.get("proofs")) == proofs)]

    def house_lines(self, proofs: Optional[bool] = None) -> list[int]:
        return [e["n"] for e in self.events[1:] if self.role[e["n"]] is not self.Role.SEAT and
                (proofs is None or bool(e.get("proofs")) == proofs)]


def _numeric(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and v.isdigit())


def _bump(v: Any) -> Any:
    """A number plus one, in the type it came in (an integer, or a decimal string)."""
    return v + 1 if isinstance(v, int) else str(int(v) + 1)


def _public_names(statement: str) -> list[str]:
    from zkbluff.statements import get_statement

    return list(get_statement(statement).public)


def _private(statement: str) -> tuple[str, ...]:
    from zkbluff.statements import get_statement

    return tuple(get_statement(statement).private)


#: the referee's key of the base being mutated (:func:`mutations` sets it): a line that carries
#: the referee's receipt gets it again whenever the line is re-signed
RECEIPT_KEY: Any = None


def sign(key: Any, event: dict[str, Any]) -> dict[str, Any]:
    """``event`` signed by ``key``; a line with the referee's receipt (a seat's or the dealer's)
    is received again by the referee at its stamp, as in the bases (the driver's one clock
    stamps and receives each line at the same time): a mutation re-signed by its maker keeps
    a receipt that covers it, so what the verifier finds is the mutation itself."""
    from zkbluff.protocol.signing import sign_line

    signed = sign_line(key, event)
    if "received" in signed and RECEIPT_KEY is not None and "at" in signed:
        signed = receipt(RECEIPT_KEY, signed, signed["at"])
    return signed


def rechain(events: list[dict[str, Any]], start: int, key_for: Optional[Callable[[dict[str, Any]], Any]]) -> list[str]:
    """The lines of ``events`` with every line from index ``start`` on renumbered and linked
    to the line before; re-signed by ``key_for(event)`` (None: the old signature kept)."""
    out = [canonical(e) for e in events[:start]]
    prev = sha256(out[-1]) if out else "0" * 64
    for i, e in enumerate(events[start:], start=start + 1):
        e = {**e, "n": i, "prev": prev}
        if key_for is not None:
            key = key_for(e)
            if key is not None:
                e = sign(key, e)
        out.append(canonical(e))
        prev = sha256(out[-1])
    return out


def receipt(key: Any, event: dict[str, Any], at: float) -> dict[str, Any]:
    from zkbluff.protocol.signing import sign_receipt

    return sign_receipt(key, event, at)


def receipt_cases(c: "Cases", B: "Base", q: int, with_line: Callable[[int, dict[str, Any]], list[str]]) -> None:
    """Line ``q`` (a seat's or the dealer's) with the referee's receipt ``received`` added, or
    replaced where it has one (the line's own signature does not cover it; the receipt covers
    the whole line): a good one is taken (the next line then links to the line as it was), one
    not the referee's, one whose time moved after it was signed, and one further than the
    tolerance (the header's, 5 s by default) from the line's stamp."""
    e, tolerance = B.ev(q), float(B.ev(1)["data"].get("clock", {}).get("tolerance", 5.0))
    maker = "the dealer" if B.role[q] is B.Role.DEALER else "the seat"
    its = "its dealer" if B.role[q] is B.Role.DEALER else "its seat"
    had = "received" in e
    e = {k: v for k, v in e.items() if k != "received"}
    with_ = "with another receipt of the referee's," if had else "with the referee's receipt"
    c.add(f"line {q} {with_} 1 s after its stamp: taken; the next line still links to the line as it was",
          ["LineChanged", "Receipt"], with_line(q, receipt(B.referee_key, e, e["at"] + 1)), "invalid", q + 1,
          "line.chain")
    c.add(f"line {q} with a receipt signed by {its}, not by the referee", ["LineChanged", "Receipt", "WrongSigner"],
          with_line(q, receipt(B.key_for(e), e, e["at"] + 1)), "invalid", q, "line.signature")
    moved = receipt(B.referee_key, e, e["at"] + 1)
    moved["received"] = {**moved["received"], "at": e["at"] + 2}
    c.add(f"line {q} with the referee's receipt, its time moved a second after the referee signed it",
          ["LineChanged", "Receipt"], with_line(q, moved), "invalid", q, "line.signature")
    c.add(f"line {q} received by the referee {tolerance + 1} s after {maker}'s stamp (further than the header's "
          f"tolerance): a back-dated line", ["LineChanged", "Receipt"],
          with_line(q, receipt(B.referee_key, e, e["at"] + tolerance + 1)), "invalid", q, "line.stamp")
    if had:
        c.add(f"line {q} without the referee's receipt (a line from before receipts is taken on its own stamp): "
              f"taken; the next line still links to the line as it was", ["LineChanged", "Receipt"],
              with_line(q, e), "invalid", q + 1, "line.chain")


class Cases:
    def __init__(self, base: Base):
        self.base = base
        self.tests: list[dict[str, Any]] = []

    def add(self, comment: str, flags: list[str], lines: list[str], result: str, line: Optional[int] = None,
            code: Optional[str] = None, seat_keys: Optional[dict[str, str]] = None,
            exit: Optional[int] = None) -> None:
        index = {text: i for i, text in enumerate(self.base.lines, start=1)}
        case: dict[str, Any] = {"comment": comment, "flags": flags, "result": result, "line": line, "code": code,
                                "exit": exit if exit is not None else
                                0 if result == "valid" else (2 if code in EXIT_2 else 1),
                                "lines": runs([index.get(x, x) for x in lines])}
        if seat_keys is not None:
            case["seatKeys"] = seat_keys
        self.tests.append(case)


def runs(items: list[Any]) -> list[Any]:
    """``items`` with every run of three or more consecutive base line numbers written
    ``[first, last]``."""
    out: list[Any] = []
    i = 0
    while i < len(items):
        j = i
        if isinstance(items[i], int):
            while j + 1 < len(items) and isinstance(items[j + 1], int) and items[j + 1] == items[j] + 1:
                j += 1
        if j - i >= 2:
            out.append([items[i], items[j]])
        else:
            out.extend(items[i:j + 1])
        i = j + 1
    return out


#: the codes of malformed input (exit 2); every other failure exits 1 (a case may say
#: otherwise: a signature that is not lowercase hex is malformed, exit 2)
EXIT_2 = {"transcript.empty", "line.json", "line.fields", "secret.leaked", "header.malformed", "header.game",
          "header.rules", "action.unknown", "line.malformed", "proof.malformed"}


def _edit_data(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its first field changed (an integer plus one, a flag flipped, a string
    or a list extended)."""
    out = dict(data)
    for k in sorted(out):
        v = out[k]
        if isinstance(v, bool):
            out[k] = not v
        elif isinstance(v, int):
            out[k] = v + 1
        elif isinstance(v, str):
            out[k] = v + "0"
        elif isinstance(v, list):
            out[k] = v + [v[0] if v else 0]
        else:
            continue
        return out
    out["edited"] = True
    return out


def mutations(base: Base, first_base: bool = False) -> list[dict[str, Any]]:
    """Every mutation of one base, with its expected result (``first_base``: also the header
    mutations that are the same for every game)."""
    from zkbluff.field import r

    global RECEIPT_KEY
    B, L = base, len(base.lines)
    RECEIPT_KEY = B.referee_key
    c = Cases(B)
    events = [B.ev(i) for i in range(1, L + 1)]
    ends = events[-1]["action"] == "end"
    seat_proofs = B.seat_lines(proofs=True)
    seat_plain = B.seat_lines(proofs=False)
    last_game = L - 1 if ends else L

    # a seat's proof line with an earlier proof of the same statement by the same seat
    def statements(n: int) -> list[str]:
        return [p["statement"] for p in events[n - 1].get("proofs", [])]

    pairs = [(a, b) for a in reversed(seat_proofs) for b in reversed(seat_proofs)
             if b < a and events[a - 1]["seat"] == events[b - 1]["seat"] and statements(a) == statements(b)]
    pa, pb = pairs[0]
    other_statement = next((b for b in reversed(seat_proofs) if events[b - 1]["seat"] == events[pa - 1]["seat"]
                            and statements(b)[0] != statements(pa)[0]), None)
    # a seat's line without proof, where that seat alone is to move and the clock moved on
    # since the line before (so its stamp can move back half a second); late in the match
    plain = [n for n in seat_plain if B.to_move_before.get(n) == events[n - 1]["seat"] and n < last_game
             and events[n - 1].get("at", 0) - events[n - 2].get("at", 0) >= 1.0]
    q = plain[-1] if plain else seat_plain[-1]
    seat_q = events[q - 1]["seat"]
    other_seat = (seat_q + 1) % len(B.seat_keys)

    def with_line(n: int, event: dict[str, Any]) -> list[str]:
        return B.lines[:n - 1] + [canonical(event)] + B.lines[n:]

    # ---- the match as played
    c.add("the match as played", ["Valid"], B.lines, "valid")
    c.add(f"a prefix: the match stopped after line {last_game - 1}, before the rules end it (not finished, and "
          f"valid as far as it goes)", ["Valid", "Unfinished"], B.lines[:last_game - 1], "valid")
    seats_hex = {str(i): k.public_hex for i, k in enumerate(B.seat_keys)}
    c.add("verified knowing every seat's public key: the header lists them", ["Valid", "SeatKeys"], B.lines,
          "valid", seat_keys=seats_hex)
    c.add(f"verified knowing seat 0 by seat 1's key: the header does not list it for seat 0",
          ["SeatKeys"], B.lines, "invalid", 1, "header.seat-key", seat_keys={"0": seats_hex["1"]})

    # ---- the file and the chain
    e = B.ev(pa)
    e["data"] = _edit_data(e["data"])
    c.add(f"line {pa}: its data edited, the signature kept", ["LineChanged"], with_line(pa, e), "invalid", pa,
          "line.signature")
    c.add(f"line {q}: a space added (not canonical JSON)", ["LineChanged"],
          B.lines[:q - 1] + [B.lines[q - 1].replace(",", ", ", 1)] + B.lines[q:], "invalid", q, "line.canonical")
    c.add(f"line {q}: not JSON", ["LineChanged"], B.lines[:q - 1] + [B.lines[q - 1][:-1]] + B.lines[q:],
          "invalid", q, "line.json")
    e = B.ev(q)
    e["note"] = "x"
    c.add(f"line {q}: a field no line has, signed by its seat", ["LineChanged"], with_line(q, sign(B.key_for(e), e)),
          "invalid", q, "line.fields")
    e = B.ev(q)
    e["sig"] = e["sig"].upper()
    c.add(f"line {q}: its signature spelled in upper-case hex (the same bytes)", ["LineChanged", "WrongSigner"],
          with_line(q, e), "invalid", q, "line.signature", exit=2)
    e = B.ev(q)
    e["n"] = float(q)
    c.add(f"line {q} numbered {float(q)} (a number, not an integer), re-signed by its seat", ["LineChanged"],
          with_line(q, sign(B.key_for(e), e)), "invalid", q, "line.number")
    if events[q - 2].get("at", 0) >= 1:
        e = B.ev(q)
        e["at"] = events[q - 2]["at"] - 1
        c.add(f"line {q} stamped a second before the line it follows, re-signed by its seat", ["LineChanged"],
              with_line(q, sign(B.key_for(e), e)), "invalid", q, "line.stamp")
    e = B.ev(q)
    del e["at"]
    c.add(f"line {q} without its stamp 'at' (every line carries one), re-signed by its seat", ["LineChanged"],
          with_line(q, sign(B.key_for(e), e)), "invalid", q, "line.stamp", exit=2)
    receipt_cases(c, B, q, with_line)
    dealer_received = [n for n in range(2, L + 1) if B.role[n] is B.Role.DEALER and "received" in events[n - 1]]
    if dealer_received:  # the dealer's line carries the referee's receipt too
        receipt_cases(c, B, dealer_received[0], with_line)
    e = B.ev(q)
    e["action"] = "dance"
    c.add(f"line {q}: an action the game does not have, signed by the seat", ["LineChanged"],
          with_line(q, sign(B.seat_keys[seat_q], e)), "invalid", q, "action.unknown")
    e = B.ev(q)
    e["data"] = {**e["data"], "note": 1}
    c.add(f"line {q}: a data field its action does not have, signed by the seat", ["LineChanged"],
          with_line(q, sign(B.key_for(e), e)), "invalid", q, "line.malformed")
    e = {**B.ev(1), "n": q, "prev": events[q - 1]["prev"], "at": events[q - 1].get("at", 0)}
    c.add(f"line {q}: a second header, signed by the referee", ["LineChanged"],
          with_line(q, sign(B.referee_key, e)), "invalid", q, "line.order")
    c.add(f"line {q} removed", ["LineRemoved"], B.lines[:q - 1] + B.lines[q:], "invalid", q, "line.number")
    c.add(f"lines {q} and {q + 1} swapped", ["LinesSwapped"],
          B.lines[:q - 1] + [B.lines[q], B.lines[q - 1]] + B.lines[q + 1:], "invalid", q, "line.number")
    if ends:
        c.add(f"the end line (line {L}) removed: the rules ended the match, the end line is missing",
              ["LineRemoved"], B.lines[:-1], "invalid", L, "end.missing")
    e = B.ev(q)
    e["at"] = e["at"] - 0.5
    moved = with_line(q, sign(B.key_for(e), e))
    c.add(f"line {q}: its stamp moved back half a second and re-signed by its seat; the next line still "
          f"links to the old line", ["ReChained"], moved, "invalid", q + 1, "line.chain")
    # the house re-chains what follows and signs its own lines again (it holds no seat's key)
    tail = [json.loads(x) for x in moved]

    def house_key(ev: dict[str, Any]) -> Any:
        return None if B.role[ev["n"]] is B.Role.SEAT else B.key_for(ev)

    lines = rechain(tail, q, house_key)
    first = next(n for n in range(q + 1, L + 1)
                 if B.role[n] is B.Role.SEAT or events[n - 1].get("proofs"))
    c.add(f"line {q}'s stamp moved; the house re-chains every later line and signs its own again: the first "
          f"later seat's line is not signed by its seat, or the first later proof was made for the old chain",
          ["ReChained", "House"], lines, "invalid", first,
          "line.signature" if B.role[first] is B.Role.SEAT else "proof.replayed")
    # every party re-signs (all keys): the proofs after line q were made for the old chain
    lines = rechain(tail, q, B.key_for)
    first_proof = next((n for n in range(q + 1, L + 1) if events[n - 1].get("proofs")), None)
    c.add(f"line {q}'s stamp moved; every later line re-chained and re-signed by its own party: the first "
          f"later proof's context is the old chain's (a proof made for another line)", ["ReChained", "AllKeys"],
          lines, "invalid" if first_proof else "valid", first_proof, "proof.replayed" if first_proof else None)

    # ---- who signs
    e = B.ev(q)
    c.add(f"line {q} (seat {seat_q}'s) signed by seat {other_seat}", ["WrongSigner"],
          with_line(q, sign(B.seat_keys[other_seat], e)), "invalid", q, "line.signature")
    c.add(f"line {q} (seat {seat_q}'s) signed by the referee", ["WrongSigner"],
          with_line(q, sign(B.referee_key, e)), "invalid", q, "line.signature")
    deal = B.house_lines(proofs=True)
    if deal:
        h = deal[-1]
        e = B.ev(h)
        c.add(f"line {h} (the dealer's or referee's, with a proof) signed by seat 0", ["WrongSigner"],
              with_line(h, sign(B.seat_keys[0], e)), "invalid", h, "line.signature")
    e = B.ev(q)
    e["seat"] = None
    c.add(f"line {q}: seat {seat_q}'s action made by the house (seat null, signed by the referee)",
          ["WrongParty"], with_line(q, sign(B.referee_key, e)), "invalid", q, "line.party")
    e = B.ev(q)
    e["seat"] = other_seat
    c.add(f"line {q}: seat {seat_q}'s action made by seat {other_seat} instead (signed with its own key), out of "
          f"turn", ["WrongParty", "Rules"], with_line(q, sign(B.seat_keys[other_seat], e)), "invalid", q,
          "rules.illegal")

    # ---- proofs
    e = B.ev(pa)
    e["proofs"] = B.ev(pb)["proofs"]
    c.add(f"line {pa}: the proof of line {pb} (same seat, same statement) replayed, re-signed by the seat",
          ["ProofReplayed"], with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.replayed")
    if other_statement is not None:
        e = B.ev(pa)
        e["proofs"] = B.ev(other_statement)["proofs"]
        c.add(f"line {pa}: the proof of line {other_statement} (another statement) in its place, re-signed",
              ["ProofReplayed"], with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.statement")
    e = B.ev(pa)
    e["proofs"][0]["proof"]["pi_a"] = B.ev(pb)["proofs"][0]["proof"]["pi_a"]
    c.add(f"line {pa}: the proof's pi_a taken from line {pb}'s proof (a valid point), re-signed: the pairing "
          f"check fails", ["ProofInvalid"], with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.invalid")
    e = B.ev(pa)
    e["proofs"][0]["public"][0] = str(int(e["proofs"][0]["public"][0]) + r)
    c.add(f"line {pa}: a public input plus r (not reduced), re-signed", ["ProofMalformed"],
          with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.malformed")
    e = B.ev(pa)
    e["proofs"][0]["signer"] = other_seat if e["proofs"][0]["signer"] != other_seat else None
    c.add(f"line {pa}: the proof names another signer, re-signed", ["ProofSigner"],
          with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.signer")
    e = B.ev(pa)
    del e["proofs"]
    c.add(f"line {pa}: its proof removed, re-signed", ["ProofMissing"], with_line(pa, sign(B.key_for(e), e)),
          "invalid", pa, "proof.missing")
    e = B.ev(q)
    e["proofs"] = B.ev(pa)["proofs"]
    c.add(f"line {q} (an action that owes no proof) carrying line {pa}'s proof, re-signed", ["ProofMissing"],
          with_line(q, sign(B.key_for(e), e)), "invalid", q, "proof.missing")
    e = B.ev(pa)
    e["proofs"][0]["vk"] = "0" * 64
    c.add(f"line {pa}: the proof names another verifying key, re-signed", ["ProofKey"],
          with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.key")
    if B.pinned.get(pa):
        name = B.pinned[pa][0]
        e = B.ev(pa)
        i = _public_names(statements(pa)[0]).index(name)
        e["proofs"][0]["public"][i] = str((int(e["proofs"][0]["public"][i]) + 1) % r)
        c.add(f"line {pa}: the proof's public input {name} (one the table holds) plus one, re-signed",
              ["ProofPublic"], with_line(pa, sign(B.key_for(e), e)), "invalid", pa, "proof.public")

    # ---- secrets
    secret = B.secrets[events[pa - 1]["seat"]]
    private = [k for k in B.statement_private[statements(pa)[0]] if k not in events[pa - 1]["data"]]
    name = next((k for k in private if k.endswith("salt")), private[0])
    e = B.ev(pa)
    e["data"] = {**e["data"], name: secret["value"]}
    c.add(f"line {pa}: the seat's secret ({secret['name']}) leaked into its data as {name!r} (a private input of "
          f"{statements(pa)[0]}), signed by the seat", ["SecretLeaked"], with_line(pa, sign(B.key_for(e), e)),
          "invalid", pa, "secret.leaked")
    e = B.ev(q)
    e["secret"] = secret["value"]
    c.add(f"line {q}: a seat's secret in a field of the line itself, signed by the seat", ["SecretLeaked"],
          with_line(q, sign(B.key_for(e), e)), "invalid", q, "secret.leaked")

    # ---- an opening (a reveal's salt: the last line that opens a commitment)
    openings = [(n, k) for n in range(2, L + 1) for k, v in sorted(events[n - 1]["data"].items())
                if k.endswith("salt") and _numeric(v)]
    openings += [(n, k) for n in range(2, L + 1) for k, v in sorted(events[n - 1]["data"].items())
                 if k.endswith("salts") and isinstance(v, list) and v and _numeric(v[0])]
    if openings:
        n, k = max(openings)
        e = B.ev(n)
        v = e["data"][k]
        e["data"][k] = [_bump(v[0])] + v[1:] if isinstance(v, list) else _bump(v)
        c.add(f"line {n}: the opening's {k} changed, re-signed by its party: it no longer opens its commitment",
              ["Opening"], with_line(n, sign(B.key_for(e), e)), "invalid", n, "commitment.mismatch")

    # ---- the zk dealer's deal (proven-deal: entropy lines, complaints)
    kinds = [ev["action"] for ev in events]
    if "entropy.dealer" in kinds and "entropy.seat" in kinds:
        s_line = kinds.index("entropy.seat") + 1
        e = B.ev(s_line)
        e["at"] = events[kinds.index("entropy.dealer")]["data"]["deadline"] + 1
        c.add(f"line {s_line}: the seat's entropy stamped a second after the dealer's deadline, re-signed by the "
              f"seat", ["DealLate"], with_line(s_line, sign(B.key_for(e), e)), "invalid", s_line, "deal.late")
    deals = [n for n in range(2, L + 1) if "sealed_hands" in events[n - 1]["data"] and events[n - 1].get("proofs")]
    hand_key = B.deal_secrets[0].get("handKey")
    if "complaint" in B.spec_deal_lines and deals and hand_key:
        d = deals[0]
        sealed = events[d - 1]["data"]["sealed_hands"]
        # hand i goes to seat seats[i] where the deal line names its seats (Cheat), else seat i
        order = events[d - 1]["data"].get("seats", list(range(len(sealed))))
        i0, i1 = order.index(0), order.index(1)

        def complaint(sealed0: str, key: str, deal_line: dict[str, Any]) -> dict[str, Any]:
            e = {"n": d + 1, "prev": sha256(canonical(deal_line)), "seat": 0, "action": "complaint",
                 "data": {"line": d, "sealed": sealed0, "handKey": key}, "at": deal_line.get("at", 0)}
            return sign(B.seat_keys[0], e)

        honest = events[d - 1]
        c.add(f"line {d + 1}: seat 0 complains about the deal on line {d} revealing a key it never committed to",
              ["Complaint"], B.lines[:d] + [canonical(complaint(sealed[i0], "00" * 32, honest))], "invalid", d + 1,
              "deal.complaint")
        c.add(f"line {d + 1}: seat 0 complains about the deal on line {d} with its own hand key, but its sealed "
              f"hand opens its commitment", ["Complaint"],
              B.lines[:d] + [canonical(complaint(sealed[i0], hand_key, honest))], "invalid", d + 1, "deal.complaint")
        # the dealer sends seat 0 seat 1's sealed hand; seat 0 complains; the referee ends the match there
        bad = B.ev(d)
        bad["data"]["sealed_hands"] = [sealed[i1] if i == i0 else x for i, x in enumerate(sealed)]
        bad = sign(B.dealer_key, bad)
        upheld = complaint(bad["data"]["sealed_hands"][i0], hand_key, bad)
        lines = B.lines[:d - 1] + [canonical(bad), canonical(upheld)]
        end = {"n": d + 2, "prev": sha256(lines[-1]), "seat": None, "action": "end",
               "data": B.result_after(lines), "at": upheld["at"]}
        lines.append(canonical(sign(B.referee_key, end)))
        c.add(f"line {d}: the dealer seals seat 1's hand to seat 0; seat 0's complaint (line {d + 1}) reveals its "
              f"committed hand key and the sealed hand does not open: the dealer is at fault, the match ends there",
              ["Complaint", "DealerAtFault"], lines, "invalid", d + 1, "deal.fault")

    # ---- Mind Bluff: the referee's seal complaint (an eat's sealed choice does not open)
    eats = [n for n in range(2, L) if events[n - 1]["action"] == "eat" and events[n]["action"] == "eat_verdict"]
    if eats:
        k = eats[0]
        eat = events[k - 1]
        accused = eat["seat"]
        said = sign(B.referee_key, {"n": k + 1, "prev": sha256(B.lines[k - 1]), "seat": None,
                                    "action": "seal_complaint", "data": {"seat": accused}, "at": eat["at"]})
        lines = B.lines[:k] + [canonical(said)]
        c.add(f"line {k + 1}: instead of the verdict on the eat of line {k}, the referee says its sealed choice does "
              f"not open (valid: the seat may answer)", ["Valid", "Unfinished", "SealComplaint"], lines, "valid")
        answer = sign(B.seat_keys[accused], {"n": k + 2, "prev": sha256(lines[-1]), "seat": accused,
                                             "action": "seal_answer", "data": {"key": "11" * 32}, "at": eat["at"]})
        c.add(f"line {k + 2}: seat {accused} answers the complaint with a key that is not its box's",
              ["SealComplaint"], lines + [canonical(answer)], "invalid", k + 2, "seal.answer")
        seconds = float(B.header["limits"]["proof"])
        timeout = sign(B.referee_key, {
            "n": k + 2, "prev": sha256(lines[-1]), "seat": None, "action": "timeout", "data": {"seat": accused},
            "at": eat["at"] + seconds + 0.5,
            "clock": {"since": k + 1, "limit": "proof", "seconds": seconds, "deadline": eat["at"] + seconds,
                      "lastSigned": [k, sha256(B.lines[k - 1])]}})
        forfeit = lines + [canonical(timeout)]
        end = {"n": k + 3, "prev": sha256(forfeit[-1]), "seat": None, "action": "end",
               "data": B.result_after(forfeit), "at": timeout["at"]}
        c.add(f"line {k + 2}: seat {accused} does not answer within the proof limit: the referee's timeout, and it "
              f"forfeits the series", ["Valid", "SealComplaint", "Timeout"],
              forfeit + [canonical(sign(B.referee_key, end))], "valid")
        # the referee gives no verdict at all: the other seat claims its time ran out (the series is void)
        claimant = 1 - accused
        stall = B.lines[:k]
        for late, at in ((True, eat["at"] + seconds + 0.5), (False, eat["at"] + seconds)):
            claim = sign(B.seat_keys[claimant], {"n": k + 1, "prev": sha256(stall[-1]), "seat": claimant,
                                                 "action": "referee_timeout", "data": {}, "at": at})
            if late:
                c.add(f"line {k + 1}: the referee gives no verdict on the eat of line {k}; seat {claimant} claims its "
                      f"time ran out after the proof limit: the referee is at fault (the series is void, no end line)",
                      ["RefereeTimeout", "RefereeAtFault"], stall + [canonical(claim)], "invalid", k + 1,
                      "referee.fault")
            else:
                c.add(f"line {k + 1}: seat {claimant} claims the referee's time ran out at the proof limit's "
                      f"deadline, not after it", ["RefereeTimeout"], stall + [canonical(claim)], "invalid", k + 1,
                      "timeout.early")

    # ---- Mind Bluff's paced pauses (seed 001: "Doubt pauses all manual and automatic play for 4.5
    # seconds"; game 3's 10-second coin animation "does not skip the server's waiting period"): the
    # next seat's line re-stamped inside the pause and just after it, re-signed by that seat
    doubts = [(n, 4.5, "the doubt", (4.4, 4.6)) for n in range(2, L) if events[n - 1]["action"] == "doubt"]
    coins = [(n, 10.0, "game 3's start", (5.0, 10.1)) for n in range(2, L)
             if events[n - 1]["action"] == "start_game" and events[n - 1]["data"].get("game") == 3]
    for opened, seconds, what, (inside, after) in doubts[:1] + coins[:1]:
        mover = next(n for n in range(opened + 1, L + 1) if events[n - 1]["seat"] is not None)
        for delay in (inside, after):
            e = B.ev(mover)
            e["at"] = events[opened - 1]["at"] + delay
            lines = B.lines[:mover - 1] + [canonical(sign(B.key_for(e), e))]
            said = (f"line {mover}: seat {e['seat']}'s {e['action']} re-stamped {delay:g} s after {what} (line "
                    f"{opened}), which pauses all play for {seconds:g} s; re-signed by the seat")
            if delay < seconds:
                c.add(said, ["PausedMove"], lines, "invalid", mover, "move.paused")
            else:
                c.add(said + " (valid: after the pause)", ["Valid", "Unfinished", "PausedMove"], lines, "valid")

    # ---- a timeout (a referee's line with a clock)
    timed = [n for n in B.house_lines(proofs=False) if "clock" in events[n - 1]]
    if timed:
        t = timed[-1]
        e = B.ev(t)
        e["at"] = e["clock"]["deadline"]
        c.add(f"line {t}: the timeout stamped at its deadline (not after it), re-signed by the referee", ["Timeout"],
              with_line(t, sign(B.referee_key, e)), "invalid", t, "timeout.early")
        e = B.ev(t)
        e["clock"]["deadline"] = e["clock"]["deadline"] - 0.5
        c.add(f"line {t}: the timeout's clock names an earlier deadline, re-signed by the referee", ["Timeout"],
              with_line(t, sign(B.referee_key, e)), "invalid", t, "timeout.clock")

    # ---- a seat's sealed automatic move (Bluffers): the referee plays it only after that seat's
    # timeout, and only the seat's own (its signature)
    if B.header["game"] == "bluffers":
        from zkbluff.games.bluffers.sealed import seal_message

        def sealed_line(n: int, seat: int, proofs: list[Any], key: Any) -> dict[str, Any]:
            data = {"seat": seat, "context": 1, "play_commitment": 2, "hand_commitment": 3}
            data["sig"] = key.sign(seal_message(B.header["matchId"], seat, 1, 2, 3))
            return sign(B.referee_key, {"n": n, "prev": events[n - 1]["prev"], "seat": None, "action": "sealed_move",
                                        "data": data, "proofs": proofs, "at": events[n - 1]["at"]})

        plays = [n for n in seat_proofs if events[n - 1]["action"] == "play"]
        n = plays[-1]
        seat = events[n - 1]["seat"]
        c.add(f"line {n}: the referee plays seat {seat}'s sealed automatic move before its timeout (the house "
              f"taking the seat's turn), signed by the seat", ["SealedMove"],
              B.lines[:n - 1] + [canonical(sealed_line(n, seat, events[n - 1]["proofs"], B.seat_keys[seat]))],
              "invalid", n, "sealed.early")
        # the seat's 30 seconds run out instead of its play (the referee's honest timeout), then
        # the referee plays a sealed move it signed itself
        from zkbluff.games.engine.referee import Referee

        ref = Referee(events[0], verify_now=False)
        for x in events[1:n - 1]:
            ref.apply(x)
        at = events[n - 2]["at"] + float(B.header["limits"]["move"]) + 0.5
        timeout = sign(B.referee_key, {"n": n, "prev": events[n - 1]["prev"], "seat": None, "action": "timeout",
                                       "data": {"seat": seat}, "at": at,
                                       "clock": ref.timeout_clock(seat, "move", at)})
        forged = sealed_line(n + 1, seat, events[n - 1]["proofs"] * 2, B.referee_key)
        forged = sign(B.referee_key, {**forged, "prev": sha256(canonical(timeout)), "at": at})
        c.add(f"line {n + 1}: after seat {seat}'s timeout (line {n}) the referee plays a sealed automatic move it "
              f"signed itself (not the seat's own)", ["SealedMove", "Timeout"],
              B.lines[:n - 1] + [canonical(timeout), canonical(forged)], "invalid", n + 1, "sealed.signature")

    # ---- the end
    if ends:
        e = B.ev(L)
        e["data"] = {**e["data"], "scores": [s + 1 for s in e["data"]["scores"]]}
        c.add(f"line {L}: the end line's scores changed, re-signed by the referee", ["EndChanged"],
              with_line(L, sign(B.referee_key, e)), "invalid", L, "end.result")
        extra = rechain([*events, B.ev(L)], L, B.key_for)
        c.add("a second end line after the end, signed by the referee", ["LineAppended"], extra, "invalid", L + 1,
              "end.early")
        after = B.ev(q)
        after["at"] = events[-1].get("at", 0)
        extra = rechain([*events, after], L, B.key_for)
        c.add(f"a copy of line {q} appended after the end, signed by its seat", ["LineAppended"], extra, "invalid",
              L + 1, "line.order")
    if ends and last_game > q + 1:
        early = rechain(events[:q] + [{**B.ev(L), "at": events[q - 1].get("at", 0)}], q, B.key_for)
        c.add(f"the end line written after line {q}, before the rules end the match", ["EndEarly"], early,
              "invalid", q + 1, "end.early")

    if first_base:
        c.add("an empty file", ["Empty"], [], "invalid", None, "transcript.empty")

    # ---- Mind Bluff's draw (game 3): once both seats revealed their entropies the referee knows the
    # start and the coin and owes game 3's start, at a table of bot seats too: a seat's claim that
    # its time ran out stands (the series settled on the games won, 1–1), and one at the deadline
    # is early. (Before, with no human seat, the referee could stall there for ever, at no fault.)
    drawn = [n for n in range(2, L) if events[n - 1]["action"] == "reveal_entropy"
             and events[n]["action"] == "start_game"]
    if drawn:
        d = drawn[0]
        seconds = float(B.header["limits"]["proof"])
        claimant = 1 - events[d - 1]["seat"]
        stall = B.lines[:d]
        for late, at in ((True, events[d - 1]["at"] + seconds + 0.5), (False, events[d - 1]["at"] + seconds)):
            claim = sign(B.seat_keys[claimant], {"n": d + 1, "prev": sha256(stall[-1]), "seat": claimant,
                                                 "action": "referee_timeout", "data": {}, "at": at})
            if late:
                c.add(f"line {d + 1}: both seats revealed their draw entropies (line {d}, the last), so the "
                      f"referee knows game 3's start and coin; it gives no start, and seat {claimant} claims its "
                      f"time ran out after the proof limit: the referee is at fault (settled 1–1, no end line)",
                      ["RefereeTimeout", "RefereeAtFault"], stall + [canonical(claim)], "invalid", d + 1,
                      "referee.fault")
            else:
                c.add(f"line {d + 1}: after the draw (line {d}), seat {claimant} claims the referee's time ran "
                      f"out at the proof limit's deadline, not after it", ["RefereeTimeout"],
                      stall + [canonical(claim)], "invalid", d + 1, "timeout.early")

    # ---- the header (the same checks for every game, and each case a whole header: on the
    # first base only, to keep the file small)
    if first_base:
        h = B.ev(1)
        h["data"]["game"] = "no-such-game"
        c.add("the header names an unknown game, re-signed by the referee", ["Header"],
              [canonical(sign(B.referee_key, h))] + B.lines[1:], "invalid", 1, "header.game")
        h = B.ev(1)
        h["data"]["seats"] = h["data"]["seats"][::-1]
        c.add("the header's seat names changed, not re-signed", ["Header"], [canonical(h)] + B.lines[1:], "invalid",
              1, "line.signature")
        c.add("the header's seat names changed and re-signed by the referee: line 2 links to the old header",
              ["Header", "ReChained"], [canonical(sign(B.referee_key, h))] + B.lines[1:], "invalid", 2, "line.chain")
        h = B.ev(1)
        h["data"]["limits"]["idle"] = 0.001
        c.add("the header gives a seat 1 ms to move (its idle limit below the game's floor), re-signed by the referee",
              ["Header", "LimitFloor"], [canonical(sign(B.referee_key, h))] + B.lines[1:], "invalid", 1,
              "header.limits")
        h = B.ev(1)
        del h["data"]["matchId"]
        c.add("the header without its matchId, re-signed", ["Header"],
              [canonical(sign(B.referee_key, h))] + B.lines[1:], "invalid", 1, "header.malformed")
    keys = sorted(B.header["keys"])
    if first_base and len(keys) >= 2:
        h = B.ev(1)
        h["data"]["keys"][keys[0]], h["data"]["keys"][keys[1]] = h["data"]["keys"][keys[1]], h["data"]["keys"][keys[0]]
        c.add(f"the header's keys for {keys[0]} and {keys[1]} swapped (each a pinned key, of another statement), "
              f"re-signed by the referee", ["Header", "UntrustedKey"],
              [canonical(sign(B.referee_key, h))] + B.lines[1:], "invalid", 1, "header.key")

    # ---- the deal's commit order (the zk dealer's entropy lines)
    if "entropy.dealer" in kinds and "entropy.seat" in kinds:
        d, s = kinds.index("entropy.dealer"), kinds.index("entropy.seat")
        if s == d + 1:
            swapped = events[:d] + [events[s], events[d]] + events[s + 1:]
            lines = rechain(swapped, d, B.key_for)[:s + 1] + B.lines[s + 1:]
            c.add(f"a seat's entropy line before the dealer's commitment (lines {d + 1} and {s + 1} swapped, "
                  f"re-chained, each re-signed by its own party)", ["DealOrder"], lines, "invalid", d + 1,
                  "deal.order")
    if "entropy.open" in kinds and "entropy.seat" in kinds:
        last, first_open = max(i for i, k in enumerate(kinds) if k == "entropy.seat"), kinds.index("entropy.open")
        if first_open == last + 1:  # commit, then open: an opening moved before the last commitment
            swapped = events[:last] + [events[first_open], events[last]] + events[first_open + 1:]
            lines = rechain(swapped, last, B.key_for)[:first_open + 1] + B.lines[first_open + 1:]
            c.add(f"a seat's entropy opening before the last seat's commitment (lines {last + 1} and "
                  f"{first_open + 1} swapped, re-chained, each re-signed by its own party): the dealer could have "
                  f"handed it to the seat still to commit", ["DealOrder"], lines, "invalid", last + 1,
                  "deal.open-early")
    return c.tests


# ---------------------------------------------------------------------------- the file

def legacy_mutations(base: Base) -> list[dict[str, Any]]:
    """A base from before receipts: it verifies as played and cut short, and a receipt added to
    one seat line is checked as any receipt is."""
    global RECEIPT_KEY
    B, L = base, len(base.lines)
    RECEIPT_KEY = B.referee_key
    c = Cases(B)
    assert "clock" not in B.header and not any("received" in e for e in B.events), f"{B.name}: not a legacy base"

    def with_line(n: int, event: dict[str, Any]) -> list[str]:
        return B.lines[:n - 1] + [canonical(event)] + B.lines[n:]

    c.add("a transcript from before receipts (no clock in its header, no receipt on any line), as played: it "
          "verifies with the default tolerance", ["Valid", "Legacy"], B.lines, "valid")
    c.add(f"a transcript from before receipts, stopped after line {L - 2} (valid as far as it goes)",
          ["Valid", "Unfinished", "Legacy"], B.lines[:L - 2], "valid")
    q = [n for n in B.seat_lines(proofs=False) if n < L - 1][-1]
    receipt_cases(c, B, q, with_line)
    for t in c.tests:
        t["flags"] = sorted(set(t["flags"]) | {"Legacy"})
    return c.tests


def rules_1_mutations(base: Base) -> list[dict[str, Any]]:
    """A base under rules ``<game>/1``: every mutation any base gets, then the rules version's
    own: the end line's words reworded (valid: the words are the game's, not checked), its code
    another of the game's or another game's, or missing; the header naming rules this verifier
    does not know."""
    from zkbluff.games.engine.rules import DealEnd
    from zkbluff.games.registry import spec_class

    global RECEIPT_KEY
    tests = mutations(base)
    B, L = base, len(base.lines)
    RECEIPT_KEY = B.referee_key
    c = Cases(B)
    game = B.header["game"]
    end = B.ev(L)
    assert B.header.get("rules") == f"{game}/1" and end["action"] == "end" and "code" in end["data"], \
        f"{B.name}: not a finished base under rules {game}/1"

    def with_end(data: dict[str, Any]) -> list[str]:
        return B.lines[:-1] + [canonical(sign(B.referee_key, {**B.ev(L), "data": data}))]

    def with_header(rules: Any) -> list[str]:
        h = B.ev(1)
        h["data"]["rules"] = rules
        return [canonical(sign(B.referee_key, h))] + B.lines[1:]

    code = end["data"]["code"]
    other = next(f"{game}.{x.value}" for x in [*spec_class(game).end_codes, *DealEnd] if f"{game}.{x.value}" != code)
    c.add(f"line {L}: the end line's words reworded (as a new release of the game would say them), re-signed by "
          f"the referee: valid, the words are not checked under rules {game}/1", ["Valid", "EndChanged", "RulesVersion"],
          with_end({**end["data"], "reason": "reworded: " + end["data"]["reason"]}), "valid")
    c.add(f"line {L}: the end line's code {other} (another this game may end with) instead of {code}, re-signed by "
          f"the referee", ["EndChanged", "RulesVersion"], with_end({**end["data"], "code": other}), "invalid", L,
          "end.result")
    c.add(f"line {L}: the end line's code cheat.emptied_hand (another game's) instead of {code}, re-signed",
          ["EndChanged", "RulesVersion"], with_end({**end["data"], "code": "cheat.emptied_hand"}), "invalid", L,
          "end.result")
    places = [True if p == 1 else p for p in end["data"]["placements"]]
    c.add(f"line {L}: the end line's place 1 written true (equal in some languages, not as JSON), re-signed by "
          f"the referee", ["EndChanged", "RulesVersion"], with_end({**end["data"], "placements": places}), "invalid",
          L, "end.result")
    c.add(f"line {L}: the end line without its code, re-signed by the referee (malformed under rules {game}/1)",
          ["EndChanged", "RulesVersion"], with_end({k: v for k, v in end["data"].items() if k != "code"}), "invalid", L,
          "line.malformed")
    c.add(f"line {L}: the end line's words not a string, re-signed by the referee", ["EndChanged", "RulesVersion"],
          with_end({**end["data"], "reason": 7}), "invalid", L, "line.malformed")
    c.add(f"the header names rules {game}/2, a version this verifier does not know, re-signed by the referee",
          ["Header", "RulesVersion"], with_header(f"{game}/2"), "invalid", 1, "header.rules")
    c.add(f"the header names another game's rules (cheat/1), re-signed by the referee", ["Header", "RulesVersion"],
          with_header("cheat/1"), "invalid", 1, "header.rules")
    c.add(f"the header names rules {game!r} without a version, re-signed by the referee", ["Header", "RulesVersion"],
          with_header(game), "invalid", 1, "header.rules")
    h = B.ev(1)
    del h["data"]["rules"]
    c.add(f"the header's rules removed (the legacy {game}/0), re-signed by the referee: line 2 links to the old "
          f"header", ["Header", "RulesVersion", "ReChained"], [canonical(sign(B.referee_key, h))] + B.lines[1:], "invalid",
          2, "line.chain")
    return tests + c.tests


def build(folder: Path = HERE) -> dict[str, Any]:
    from zkbluff.errors import TRANSCRIPT_CODES

    groups = []
    tc = 0
    for name, game, options, seed in BASES + LEGACY + RULES_1 + game_bases():  # a game folder's after: no tcId moves
        if not (folder / f"{name}.jsonl").exists():
            continue
        base = Base(name, folder)
        tests = legacy_mutations(base) if (name, game, options, seed) in LEGACY else \
            rules_1_mutations(base) if (name, game, options, seed) in RULES_1 else \
            mutations(base, first_base=not groups)
        for t in tests:
            tc += 1
            t["tcId"] = tc
        groups.append({"transcript": f"{name}.jsonl", "sha256": sha256(base.text), "game": game,
                       "options": base.header["options"], "seats": len(base.seat_keys), "lines": len(base.lines),
                       "seed": seed, "tests": [{"tcId": t.pop("tcId"), **t} for t in tests]})
    return {
        "algorithm": "zkbluff-transcript", "schemaVersion": SCHEMA_VERSION, "numberOfTests": tc,
        "header": [
            "Transcript conformance vectors: every test is a transcript (`lines`: each entry a line number of the "
            "group's base transcript, taken verbatim, or a line given verbatim) and the result a verifier must give: "
            "valid, or invalid with the first failing `line` and its reason `code` (and the exit code of "
            "`zkbluff transcript verify`). `seatKeys`: seat public keys the verifier is told (--seat-key).",
            "Keys: the pinned project keys (circuits/keys/). Made by vectors/transcripts/generate.py; see README.md.",
        ],
        "codes": dict(TRANSCRIPT_CODES),
        "testGroups": groups,
    }


def dump(obj: dict[str, Any]) -> str:
    """The file's text: indented, with each test on one line (short, and a diff names the test)."""
    def compact(x: Any) -> str:
        return json.dumps(x, ensure_ascii=False, separators=(",", ":"))

    top = {k: v for k, v in obj.items() if k != "testGroups"}
    out = json.dumps(top, indent=1, ensure_ascii=False)[:-2] + ',\n "testGroups": [\n'
    groups = []
    for g in obj["testGroups"]:
        head = json.dumps({k: v for k, v in g.items() if k != "tests"}, ensure_ascii=False)[:-1]
        groups.append("  " + head + ', "tests": [\n' + ",\n".join("   " + compact(t) for t in g["tests"]) + "\n  ]}")
    return out + ",\n".join(groups) + "\n ]\n}\n"


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", nargs="*", metavar="NAME",
                    help="play the base matches first (all, or the names given)")
    ap.add_argument("--check", action="store_true", help="derive vectors.json again and fail on any difference")
    args = ap.parse_args(argv)
    if args.matches is not None:
        bases = all_bases()
        names = args.matches or [b[0] for b in bases]
        unknown = sorted(set(names) - {b[0] for b in bases})
        if unknown:
            ap.error(f"unknown base(s) {unknown}; known: {[b[0] for b in bases]}")
        for name, game, options, seed in bases:
            if name in names:
                play_match(name, game, options, seed, HERE)
    text = dump(build())
    if args.check:
        if not VECTORS.exists() or VECTORS.read_text(encoding="utf-8") != text:
            print(f"{VECTORS} differs from what the stored base transcripts give: run "
                  f"python vectors/transcripts/generate.py", file=sys.stderr)
            return 1
        print(f"{VECTORS}: up to date")
        return 0
    VECTORS.write_text(text, encoding="utf-8")
    print(f"wrote {VECTORS} ({json.loads(text)['numberOfTests']} tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
