"""A Proof or Bluff table: the seats' private state, the provers, the referee and the
transcript, driven move by move.

Trust model (zk dealer, DESIGN.md): the house deals. The deal proof shows both hands are
legitimate and disjoint, every play proof that the cards came from the hand, every claim
proof that its verdict is true; after the match the seats reveal their entropies and
salt seeds, and anyone recomputes the deal from the seed. The dealer could see the
hands: the transcript says so in its header.

Time is injected (``clock``): a move that does not come before its deadline is settled by
``poll()`` as the rules say (a proof timeout is a caught bluff, an idle turn a forfeit).
Tests never sleep.
"""
from __future__ import annotations

import json
import os
import secrets as pysecrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.proof_or_bluff.referee import (
    CLAIM_ID, MATCH_ID, PLAY_ID, Referee, deal_hands, deal_id, draw_stream, statements_for,
)
from zkbluff.games.proof_or_bluff.rules import MODES, card_name, rank_mask, rank_name
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import prove
from zkbluff.protocol.commit_reveal import (
    SeatSecrets, combine_entropies, commit_seed, fresh_salt, hand_salt,
)
from zkbluff.protocol.context import context_value
from zkbluff.protocol.messages import open_sealed, seal, seat_key
from zkbluff.protocol.transcript import TranscriptWriter, parse_chain, read_lines
from zkbluff.statements import get_statement
from zkbluff.statements.cards import NO_RANK
from zkbluff.statements.keys import load_keys

TRUST = ("zk dealer: the house deals and could see both hands; the deal proof shows them legitimate and "
         "disjoint, every play and claim is proven, and the seed is revealed after the match so anyone can "
         "recompute the deal")


@dataclass
class SeatState:
    """What one seat knows privately."""

    entropy: str
    salt_seed: str
    hand: int = 0
    salt: int = 0
    play: int = 0
    play_salt: int = 0

    def cards(self) -> list[int]:
        return [c for c in range(52) if self.hand >> c & 1]


@dataclass
class MoveTiming:
    line: int
    action: str
    seat: Optional[int]
    prove_s: float = 0.0
    verify_s: float = 0.0


class Table:
    def __init__(self, table: str = "classic", mode: str = "standard", match_id: Optional[str] = None,
                 transcript: Optional[Path] = None, clock: Callable[[], float] = time.monotonic,
                 proof_timeout: float = 60.0, idle_timeout: float = 600.0, seat_names=("player", "house"),
                 key_folder: Optional[Path] = None, backend=None, seat_secrets: Optional[list[SeatSecrets]] = None,
                 say: Optional[Callable[[str], None]] = None, overwrite: bool = False,
                 _resume: Optional[tuple[list[dict], list[SeatState]]] = None):
        if table not in ("classic", "five-up") or mode not in MODES:
            raise MalformedInput(f"unknown table {table!r} or mode {mode!r}")
        self.kind, self.mode = table, mode
        self.clock, self.proof_timeout, self.idle_timeout = clock, proof_timeout, idle_timeout
        self.backend = backend
        self.keys = {k: load_keys(k, key_folder, say=say) for k in statements_for(table, mode)}
        self.timings: list[MoveTiming] = []
        self.transcript_path = Path(transcript) if transcript else None
        if _resume is not None:
            events, seats = _resume
            self.seats = seats
            self.writer = TranscriptWriter(transcript, events=events) if transcript else TranscriptWriter(None, events)
            header = events[0]["data"]
            self.match_id = header["matchId"]
            self.referee = Referee(header)
            for e in events[1:]:
                self.referee.apply(e, verify_now=False)
            self.referee.verify_pending()
            self._start_stream()
            for _ in self.referee.dealt:  # advance the dealer's stream past the dealt rounds
                deal_hands(self.stream, self.kind, MODES[mode].hand_size)
        else:
            self.match_id = match_id or pysecrets.token_hex(8)
            secrets_ = seat_secrets or [SeatSecrets.fresh(), SeatSecrets.fresh()]
            self.seats = [SeatState(s.entropy, s.salt_seed) for s in secrets_]
            self.writer = TranscriptWriter(transcript, overwrite=overwrite)
            header = {
                "game": "proof-or-bluff", "table": table, "mode": mode, "matchId": self.match_id,
                "seats": list(seat_names), "trust": TRUST,
                "commitments": [SeatSecrets(s.entropy, s.salt_seed).commitments() for s in self.seats],
                "seedCommitment": commit_seed(self._seed()),
                "keys": {k: pk.vk.to_json() for k, pk in self.keys.items()},
            }
            self.writer.append(None, "header", header)
            self.referee = Referee(header)
            self._start_stream()
            self._save_secrets()
        self.deadline = self.clock() + self.idle_timeout
        if not self.referee.dealt and not self.over:
            self._deal()

    # ---------------------------------------------------------------- state
    def _seed(self) -> str:
        return combine_entropies([s.entropy for s in self.seats])

    def _start_stream(self) -> None:
        self.stream = draw_stream(self._seed(), self.kind, self.match_id)
        self.starting_rank = self.stream.int(13) if self.kind == "classic" else None

    @property
    def rules(self):
        return self.referee.rules

    @property
    def state(self):
        return self.referee.rules.s

    @property
    def over(self) -> bool:
        return self.referee.rules.over

    @property
    def to_move(self) -> int:
        return self.state.to_move

    def observation(self, seat: int) -> dict:
        """What ``seat`` may see: the public state, its own cards, the public history."""
        s = self.state
        obs = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in asdict(s).items() if k != "mode"}
        obs["seat"] = seat
        obs["target"] = s.mode.target if self.kind == "classic" else s.target
        obs["hand"] = self.seats[seat].cards()
        obs["history"] = [{"seat": e["seat"], "action": e["action"],
                           "data": {k: v for k, v in e["data"].items() if k in ("count", "rank", "verdict", "lies",
                                                                             "names", "kind", "round")}}
                          for e in self.writer.events[1:]]
        obs["legal"] = self.rules.legal_actions(seat)
        return obs

    # ---------------------------------------------------------------- plumbing
    def _context(self) -> int:
        return context_value(self.match_id, self.writer.next_line, self.writer.head)

    def _prove(self, key_id: str, inputs: dict, timing: MoveTiming) -> dict:
        stmt = get_statement(key_id)
        system, witness = stmt.build({**inputs, "context": self._context()})
        t = time.perf_counter()
        proof = prove(self.keys[key_id], witness, backend=self.backend)
        timing.prove_s += time.perf_counter() - t
        return {"statement": key_id, "vk": self.keys[key_id].vk.fingerprint(),
                "public": [str(x) for x in witness[1: 1 + system.n_public]], "proof": proof.to_json()}

    def submit(self, seat: Optional[int], action: str, data: dict, proof: Optional[dict] = None,
               timing: Optional[MoveTiming] = None) -> dict:
        """Check an event with the referee (rules, commitments, proof) and, if it holds,
        write it. A rejected event raises and changes nothing."""
        event = {"n": self.writer.next_line, "prev": self.writer.head, "seat": seat, "action": action, "data": data}
        if proof is not None:
            event["proof"] = proof
        t = time.perf_counter()
        self.referee.apply(event, verify_now=True)
        if timing is not None:
            timing.verify_s = time.perf_counter() - t
            timing.line = event["n"]
            self.timings.append(timing)
        written = self.writer.append(seat, action, data, proof)
        self.deadline = self.clock() + (self.proof_timeout if self.state.phase == "prove" else self.idle_timeout)
        if self.over and not self.referee.ended:
            self._finish()
        elif self.state.phase == "deal":
            self._deal()
        return written

    def _save_secrets(self) -> None:
        """Each seat's private state beside the transcript (for resuming); never published."""
        if self.transcript_path is None:
            return
        path = self.transcript_path.with_name(self.transcript_path.name + ".secrets.json")
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps([asdict(s) for s in self.seats]))
        os.replace(tmp, path)

    # ---------------------------------------------------------------- dealer
    def _deal(self) -> None:
        rnd = len(self.referee.dealt) + 1
        hands, board = deal_hands(self.stream, self.kind, MODES[self.mode].hand_size)
        inputs = {"board": board}
        for i, seat in enumerate(self.seats):
            seat.hand, seat.salt = hands[i], hand_salt(seat.salt_seed, rnd)
            inputs[f"hand{i}"], inputs[f"hand{i}_salt"] = seat.hand, seat.salt
        timing = MoveTiming(0, "deal", None)
        key = deal_id(self.kind, MODES[self.mode].hand_size)
        proof = self._prove(key, inputs, timing)
        line = self.writer.next_line
        data = {"round": rnd, "handCommitments": [str(commit(s.hand, s.salt)) for s in self.seats],
                "sealedHands": [seal(seat_key(s.salt_seed, i), self.match_id, line,
                                     {"hand": str(s.hand), "salt": str(s.salt)}) for i, s in enumerate(self.seats)]}
        if self.kind == "classic":
            if rnd == 1:
                data["startingRank"] = self.starting_rank
        else:
            data["board"] = str(board)
        self._save_secrets()
        self.submit(None, "deal", data, proof, timing)
        for i in range(len(self.seats)):
            self.receive_hand(i, data, line)

    def receive_hand(self, seat: int, deal_data: dict, line: int) -> int:
        """A seat opens its sealed hand from the deal line and checks it against the
        published commitment (a dealer who sends another hand is caught here)."""
        st = self.seats[seat]
        got = open_sealed(seat_key(st.salt_seed, seat), self.match_id, line, deal_data["sealedHands"][seat])
        hand, salt = int(got["hand"]), int(got["salt"])
        if str(commit(hand, salt)) != deal_data["handCommitments"][seat]:
            raise CommitmentMismatch(f"seat {seat}: the sealed hand does not open the published commitment")
        return hand

    def _finish(self) -> None:
        """The end line and the reveal, each checked by the referee like any move."""
        s = self.state
        for action, data in (
                ("end", {"winner": s.winner, "draw": s.draw, "scores": list(s.scores), "reason": s.end_reason}),
                ("reveal", {"seats": [{"entropy": x.entropy, "saltSeed": x.salt_seed} for x in self.seats],
                            "seed": self._seed()})):
            event = {"n": self.writer.next_line, "prev": self.writer.head, "seat": None, "action": action,
                     "data": data}
            self.referee.apply(event)
            self.writer.append(None, action, data)

    # ---------------------------------------------------------------- seat moves (honest)
    def play(self, seat: int, cards: Iterable[int]) -> dict:
        """Place ``cards`` face down, claiming "len(cards) × required rank"."""
        cards = sorted(set(cards))
        mask = sum(1 << c for c in cards)
        if self.kind != "classic":
            raise IllegalMove("play: only at the classic table (5 Up 2 Down claims instead)")
        self.rules.check_play(seat, len(cards))  # raises the precise IllegalMove, changes nothing
        st = self.seats[seat]
        if any(not 0 <= c < 52 for c in cards) or mask & ~st.hand:
            raise IllegalMove("play: you can only play cards from your own hand")
        new_salt, play_salt = fresh_salt(), fresh_salt()
        timing = MoveTiming(0, "play", seat)
        proof = self._prove(PLAY_ID, {"old_hand": st.hand, "old_salt": st.salt, "play": mask,
                                      "play_salt": play_salt, "new_salt": new_salt}, timing)
        data = {"count": len(cards), "rank": self.state.required_rank,
                "newHandCommitment": str(commit(st.hand & ~mask, new_salt)),
                "playCommitment": str(commit(mask, play_salt))}
        event = self.submit(seat, "play", data, proof, timing)
        st.hand, st.salt, st.play, st.play_salt = st.hand & ~mask, new_salt, mask, play_salt
        self._save_secrets()
        return event

    def accept(self, seat: int) -> dict:
        return self.submit(seat, "accept", {})

    def challenge(self, seat: int) -> dict:
        return self.submit(seat, "challenge", {})

    def prove_claim(self, seat: int) -> dict:
        """The challenged seat's proof: classic discloses the verdict bit, 5 Up 2 Down the
        number of lies."""
        s = self.state
        if s.phase != "prove" or seat != s.to_move:
            raise IllegalMove(f"prove: not expected from seat {seat} now")
        st = self.seats[seat]
        timing = MoveTiming(0, "prove", seat)
        if self.kind == "classic":
            mask = rank_mask(s.claim[2])
            verdict = int(st.play & ~mask == 0)
            proof = self._prove(CLAIM_ID, {"play": st.play, "play_salt": st.play_salt, "rank_mask": mask}, timing)
            return self.submit(seat, "prove", {"verdict": verdict}, proof, timing)
        names = list(s.claim[1]) + [NO_RANK] * (2 - len(s.claim[1]))
        proof = self._prove(MATCH_ID, {"hand": st.hand, "hand_salt": st.salt, "board": s.board, "name1": names[0],
                                       "name2": names[1]}, timing)
        lies = int(proof["public"][4])
        return self.submit(seat, "prove", {"lies": lies}, proof, timing)

    def claim(self, seat: int, names: Iterable[int]) -> dict:
        return self.submit(seat, "claim", {"names": sorted(int(n) for n in names)})

    def apply(self, seat: int, action: tuple) -> dict:
        """One move as the agents express it."""
        kind = action[0]
        if kind == "play":
            return self.play(seat, action[1])
        if kind == "accept":
            return self.accept(seat)
        if kind == "challenge":
            return self.challenge(seat)
        if kind == "prove":
            return self.prove_claim(seat)
        if kind == "claim":
            return self.claim(seat, action[1])
        raise IllegalMove(f"unknown action {kind!r}")

    # ---------------------------------------------------------------- time
    def poll(self) -> Optional[dict]:
        """Apply the timeout the clock has reached, if any (a proof timeout is a caught
        bluff; an idle turn is a forfeit)."""
        if self.over or self.clock() < self.deadline:
            return None
        kind = "proof" if self.state.phase == "prove" else "idle"
        return self.submit(self.to_move, "timeout", {"kind": kind})

    # ---------------------------------------------------------------- resume
    @classmethod
    def resume(cls, transcript: Path, **kwargs) -> "Table":
        """Continue a match from its transcript and the seats' secrets file beside it."""
        transcript = Path(transcript)
        events = list(parse_chain(read_lines(transcript)))
        if not events or events[0]["action"] != "header":
            raise MalformedInput("transcript: the first line must be the header")
        sec_path = transcript.with_name(transcript.name + ".secrets.json")
        try:
            seats = [SeatState(**s) for s in json.loads(sec_path.read_text())]
        except (OSError, ValueError, TypeError) as exc:
            raise MalformedInput(f"cannot resume without the seats' secrets ({sec_path}): {exc}") from None
        header = events[0]["data"]
        return cls(header["table"], header["mode"], transcript=transcript, _resume=(events, seats), **kwargs)

    def describe(self, event: dict) -> str:
        """One line for a human about a transcript event."""
        a, seat, d = event["action"], event["seat"], event["data"]
        who = self.writer.events[0]["data"]["seats"][seat] if seat is not None else "dealer"
        if a == "deal":
            extra = f", starting rank {rank_name(d['startingRank'])}" if "startingRank" in d else ""
            if "board" in d:
                extra += ", board " + " ".join(card_name(c) for c in range(52) if int(d["board"]) >> c & 1)
            return f"round {d['round']} dealt{extra}"
        if a == "play":
            return f"{who} plays {d['count']} card(s): \"{d['count']} × {rank_name(d['rank'])}\""
        if a == "prove":
            if "verdict" in d:
                return f"{who} proves the claim: {'TRUE' if d['verdict'] else 'BLUFF'}"
            return f"{who} proves the claim: {d['lies']} lie(s)"
        if a == "claim":
            return f"{who} claims {', '.join(rank_name(n) for n in d['names']) or 'no match'}"
        if a == "end":
            return ("draw" if d["draw"] else f"{self.writer.events[0]['data']['seats'][d['winner']]} wins") + \
                f" ({d['reason']}; scores {d['scores'][0]}–{d['scores'][1]})"
        return f"{who} {a}s" + (f" ({d['kind']})" if "kind" in d else "")
