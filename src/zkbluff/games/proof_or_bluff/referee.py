"""The referee: checks each transcript event against the rules, the commitments on the
table and its proof, then applies it. The live table runs every incoming move through it
before writing the line; ``zkbluff transcript verify`` runs a whole file through it
offline. One piece of code decides what is legal.

Proofs are checked at once (``verify_now=True``, the live table) or collected per
statement for one batch verification at the end (the offline verifier).
"""
from __future__ import annotations

from typing import Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, InvalidProof, MalformedInput, TranscriptError
from zkbluff.fair.schemes import match_stream
from zkbluff.games.proof_or_bluff.rules import (
    MODES, ClassicRules, FiveUpRules, rank_mask,
)
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import Proof, VerifyingKey, batch_verify, public_from_json, verify
from zkbluff.protocol.commit_reveal import check_reveal, combine_entropies, commit_seed, hand_salt
from zkbluff.protocol.context import context_value
from zkbluff.statements.cards import NO_RANK

GAME = "proof-or-bluff"
PLAY_ID = "card.play.v1@deck=52,max_play=4"
CLAIM_ID = "card.claim.v1@deck=52"
MATCH_ID = "card.match.v1@deck=52"


def deal_id(table: str, hand_size: int) -> str:
    if table == "five-up":
        return "card.deal.v1@deck=52,hands=2-2,board=5"
    return f"card.deal.v1@deck=52,hands={hand_size}-{hand_size},board=0"


def statements_for(table: str, mode: str) -> list[str]:
    hs = MODES[mode].hand_size
    if table == "five-up":
        return [deal_id(table, hs), MATCH_ID]
    return [deal_id(table, hs), PLAY_ID, CLAIM_ID]


def draw_stream(seed: str, table: str, match_id: str):
    """The deal's randomness: seed 002's match_seed_v2 draw stream keyed by the match
    seed (as text), game name ``proof-or-bluff`` / ``five-up-two-down``, no client seeds."""
    return match_stream(seed, GAME if table == "classic" else "five-up-two-down", match_id, [])


def deal_hands(stream, table: str, hand_size: int) -> tuple[list[int], int]:
    """One round's deal from the stream: a shuffle of 0..51; seat 0 takes the first
    ``hand_size`` positions, seat 1 the next; 5 Up 2 Down's board is positions 4..8."""
    deck = stream.shuffle(range(52))
    size = 2 if table == "five-up" else hand_size
    hands = [sum(1 << c for c in deck[i * size:(i + 1) * size]) for i in range(2)]
    board = sum(1 << c for c in deck[4:9]) if table == "five-up" else 0
    return hands, board


#: the data fields each action carries (nothing else is accepted)
FIELDS = {
    "deal": ({"round", "handCommitments", "sealedHands"}, {"startingRank", "board"}),
    "play": ({"count", "rank", "newHandCommitment", "playCommitment"}, set()),
    "accept": (set(), set()),
    "challenge": (set(), set()),
    "prove": (set(), {"verdict", "lies"}),
    "claim": ({"names"}, set()),
    "timeout": ({"kind"}, set()),
    "end": ({"winner", "draw", "scores", "reason"}, set()),
    "reveal": ({"seats", "seed"}, set()),
}
WITH_PROOF = {"deal", "play", "prove"}


class Referee:
    def __init__(self, header: dict):
        try:
            self.table = header["table"]
            self.mode = header["mode"]
            self.match_id = header["matchId"]
            self.seat_commitments = header["commitments"]
            self.seed_commitment = header["seedCommitment"]
            keys = header["keys"]
        except (KeyError, TypeError):
            raise MalformedInput("header: expected table, mode, matchId, commitments, seedCommitment, keys") from None
        if self.table not in ("classic", "five-up") or self.mode not in MODES:
            raise MalformedInput(f"header: unknown table {self.table!r} or mode {self.mode!r}")
        if not isinstance(keys, dict) or set(keys) != set(statements_for(self.table, self.mode)):
            raise MalformedInput(f"header: expected keys for {statements_for(self.table, self.mode)}")
        self.vks = {k: VerifyingKey.from_json(v) for k, v in keys.items()}
        self.rules = ClassicRules(MODES[self.mode], 0) if self.table == "classic" else FiveUpRules(self.mode)
        self.hand_commitments: list[Optional[int]] = [None, None]
        self.dealt: list[dict] = []  # per round: the dealt commitments (and board), checked at the reveal
        self.play_commitment: Optional[int] = None
        self.pending: dict[str, list] = {}
        self.started = False
        self.ended = False
        self.revealed = False

    # ---- proofs
    def _check_proof(self, event: dict, statement: str, expected: dict, verify_now: bool) -> list[int]:
        proof = event.get("proof")
        if not isinstance(proof, dict) or proof.get("statement") != statement:
            raise MalformedInput(f"expected a proof of {statement}")
        vk = self.vks[statement]
        if proof.get("vk") != vk.fingerprint():
            raise IllegalMove(f"the proof names key {proof.get('vk')!r:.20}, not the table's key for {statement}")
        public = public_from_json(proof.get("public"))
        from zkbluff.statements import get_statement

        names = get_statement(statement).public
        if len(public) != len(names):
            raise MalformedInput(f"{statement}: {len(public)} public inputs, expected {len(names)}")
        got = dict(zip(names, public))
        expected = {**expected, "context": context_value(self.match_id, event["n"], event["prev"])}
        for k, v in expected.items():
            if got[k] != v:
                raise IllegalMove(f"{statement}: public input {k} is not what the table holds "
                                  f"({'a proof from another turn or match' if k == 'context' else 'mismatch'})")
        pr = Proof.from_json(proof.get("proof"))
        if verify_now:
            verify(vk, public, pr)
        else:
            self.pending.setdefault(statement, []).append((public, pr, event["n"]))
        return public

    def verify_pending(self) -> None:
        """Batch-verify the collected proofs, one batch per key; name the bad line."""
        for statement, items in self.pending.items():
            try:
                batch_verify(self.vks[statement], [(pub, pr) for pub, pr, _ in items])
            except InvalidProof as exc:
                line = items[exc.index or 0][2]
                raise TranscriptError(f"the {statement} proof does not verify", line=line) from None
        self.pending = {}

    # ---- events
    def apply(self, event: dict, verify_now: bool = True) -> None:
        action, seat, data = event["action"], event["seat"], event["data"]
        if not isinstance(data, dict):
            raise MalformedInput("data: expected an object")
        if self.revealed:
            raise IllegalMove("nothing may follow the reveal")
        if action == "header":
            raise IllegalMove("a second header")
        if action not in FIELDS:
            raise MalformedInput(f"unknown action {action!r}")
        handler = getattr(self, "_on_" + action)
        required, optional = FIELDS[action]
        if not required <= set(data) <= required | optional:
            raise IllegalMove(f"{action}: data fields {sorted(data)}, expected {sorted(required)}"
                              + (f" and optionally {sorted(optional)}" if optional else ""))
        if ("proof" in event) != (action in WITH_PROOF):
            raise IllegalMove(f"{action}: {'a proof is missing' if action in WITH_PROOF else 'an unexpected proof'}")
        if action not in ("end", "reveal") and self.ended:
            raise IllegalMove(f"{action}: the match is over")
        try:
            handler(event, seat, data, verify_now)
        except (LookupError, TypeError, ValueError) as exc:
            if isinstance(exc, MalformedInput):
                raise
            raise MalformedInput(f"{action}: malformed data ({exc})") from None

    def _on_deal(self, event, seat, data, verify_now):
        if seat is not None:
            raise IllegalMove("deal: the dealer's event has no seat")
        commitments = [int(c) for c in data["handCommitments"]]
        board = int(data.get("board", 0))
        self.rules._expect(None, "deal", "deal")
        if data["round"] != len(self.dealt) + 1:
            raise IllegalMove(f"deal: round {data['round']}, expected {len(self.dealt) + 1}")
        hs = MODES[self.mode].hand_size
        self._check_proof(event, deal_id(self.table, hs),
                          {"hand0_commitment": commitments[0], "hand1_commitment": commitments[1], "board": board},
                          verify_now)
        if self.table == "classic":
            if not self.started:
                start = int(data["startingRank"])
                if not 0 <= start < 13:
                    raise MalformedInput("deal: startingRank must be 0..12")
                self.rules.s.required_rank = start
            self.rules.deal()
        else:
            self.rules.deal(board)
        self.started = True
        self.hand_commitments = list(commitments)
        self.dealt.append({"round": data["round"], "commitments": commitments, "board": board,
                           "startingRank": data.get("startingRank")})

    def _on_play(self, event, seat, data, verify_now):
        count = int(data["count"])
        if self.table != "classic":
            raise IllegalMove("play: only at the classic table")
        self.rules.check_play(seat, count)
        if int(data["rank"]) != self.rules.s.required_rank:
            raise IllegalMove(f"play: the claimed rank must be the required rank {self.rules.s.required_rank}")
        new_c, play_c = int(data["newHandCommitment"]), int(data["playCommitment"])
        self._check_proof(event, PLAY_ID, {"old_hand_commitment": self.hand_commitments[seat],
                                           "new_hand_commitment": new_c, "play_commitment": play_c,
                                           "count": count}, verify_now)
        self.rules.play(seat, count)
        self.hand_commitments[seat] = new_c
        self.play_commitment = play_c

    def _on_accept(self, event, seat, data, verify_now):
        self.rules.accept(seat)

    def _on_challenge(self, event, seat, data, verify_now):
        self.rules.challenge(seat)

    def _on_prove(self, event, seat, data, verify_now):
        s = self.rules.s
        if s.phase != "prove" or seat != s.to_move:
            raise IllegalMove(f"prove: not expected from seat {seat} now")
        if self.table == "classic":
            verdict = int(data["verdict"])
            if verdict not in (0, 1):
                raise MalformedInput("prove: verdict must be 0 or 1")
            self._check_proof(event, CLAIM_ID, {"play_commitment": self.play_commitment,
                                                "rank_mask": rank_mask(s.claim[2]), "verdict": verdict}, verify_now)
            self.rules.resolve(bool(verdict))
        else:
            lies = int(data["lies"])
            names = list(s.claim[1]) + [NO_RANK] * (2 - len(s.claim[1]))
            self._check_proof(event, MATCH_ID, {"hand_commitment": self.hand_commitments[seat], "board": s.board,
                                                "name1": names[0], "name2": names[1], "lies": lies}, verify_now)
            self.rules.resolve(lies)

    def _on_claim(self, event, seat, data, verify_now):
        if self.table != "five-up":
            raise IllegalMove("claim: only at the 5 Up 2 Down table (the classic claim is the play)")
        self.rules.claim(seat, tuple(int(x) for x in data["names"]))

    def _on_timeout(self, event, seat, data, verify_now):
        self.rules.timeout(seat, data["kind"])

    def _on_end(self, event, seat, data, verify_now):
        s = self.rules.s
        if not self.rules.over:
            raise IllegalMove("end: the match is not over by the rules")
        if self.ended:
            raise IllegalMove("end: a second end")
        expected = {"winner": s.winner, "draw": s.draw, "scores": s.scores, "reason": s.end_reason}
        if {k: data.get(k) for k in expected} != expected:
            raise IllegalMove(f"end: recorded {data!r:.100}, the rules give {expected}")
        self.ended = True

    def _on_reveal(self, event, seat, data, verify_now):
        """Reveals open every commitment and the seed recomputes every deal."""
        if not self.ended:
            raise IllegalMove("reveal: before the end")
        seats = data["seats"]
        if len(seats) != 2:
            raise MalformedInput("reveal: expected two seats")
        for i, rv in enumerate(seats):
            check_reveal(self.seat_commitments[i], rv, f"seat {i}")
        seed = combine_entropies([rv["entropy"] for rv in seats])
        if data["seed"] != seed:
            raise CommitmentMismatch("reveal: the seed is not the combination of the revealed entropies")
        if commit_seed(seed) != self.seed_commitment:
            raise CommitmentMismatch("the combined entropies do not give the committed seed")
        stream = draw_stream(seed, self.table, self.match_id)
        hs = MODES[self.mode].hand_size
        if self.table == "classic":
            start = stream.int(13)
            if self.dealt and self.dealt[0]["startingRank"] != start:
                raise CommitmentMismatch(f"the starting rank was {self.dealt[0]['startingRank']}, the seed gives {start}")
        for rnd in self.dealt:
            hands, board = deal_hands(stream, self.table, hs)
            got = [commit(hands[i], hand_salt(seats[i]["saltSeed"], rnd["round"])) for i in range(2)]
            if got != rnd["commitments"] or board != rnd["board"]:
                raise CommitmentMismatch(f"round {rnd['round']}: the seed's deal does not open the hand commitments")
        self.revealed = True
