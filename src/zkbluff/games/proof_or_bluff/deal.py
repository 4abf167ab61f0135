"""Proof or Bluff's deal today: commit-reveal with ``card.deal.v1`` (disjoint committed
hands) and a reveal after the match.

Each seat makes its entropy and hand-salt seed on its own side, publishes their SHA-256
commitments and sends the secrets to the dealer (a private message). The dealer checks
them against the commitments, publishes a commitment to the seed (the seats' entropies
combined), deals each round from seed 002's draw stream keyed by the seed, proves the
hands disjoint (``card.deal.v1``) and seals each seat's hand to it. After the end, the
dealer's ``reveal`` line opens every commitment, and anyone recomputes every deal.

This is the scheme the issue-11 deal-in-proof statement replaces; a spec swaps its
``deal`` for another :class:`~zkbluff.games.engine.spec.DealScheme` and nothing else changes.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional

from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.fair.schemes import match_stream
from zkbluff.games.engine.spec import DealScheme
from zkbluff.gadgets.native import commit
from zkbluff.protocol.commit_reveal import (
    SeatSecrets, check_reveal, combine_entropies, commit_seed, hand_salt,
)
from zkbluff.protocol.messages import open_sealed, seal, seat_key

SCHEME = "commit-reveal.v1"
TRUST = ("zk dealer: the house deals and could see every hand; the deal proof shows them legitimate and "
         "disjoint, every play and claim is proven, every line is signed by its party, and the seed is "
         "revealed after the match so anyone can recompute the deal")


@dataclass(frozen=True)
class DealtRound:
    """One round's deal: each seat's hand mask and a public board mask."""

    hands: tuple[int, ...]
    board: int


class Dealing(ABC):
    """How a game turns the draw stream into its deals (the part a game supplies)."""

    @abstractmethod
    def start(self, stream: Any) -> Optional[int]:
        """Draws made once before the first deal (the classic starting rank), or None."""

    @abstractmethod
    def round(self, stream: Any) -> DealtRound: ...


class RevealDeal(DealScheme):
    closing: ClassVar[Optional[str]] = "reveal"
    trust: ClassVar[str] = TRUST

    def __init__(self, game: str, dealing: Dealing, n_seats: int):
        self.game, self.dealing, self.n_seats = game, dealing, n_seats

    # ---- seat side
    def seat_secrets(self) -> dict[str, Any]:
        s = SeatSecrets.fresh()
        return {"entropy": s.entropy, "saltSeed": s.salt_seed}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return SeatSecrets(secrets["entropy"], secrets["saltSeed"]).commitments()

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {"entropy": secrets["entropy"], "saltSeed": secrets["saltSeed"]}

    def seat_open(self, secrets: Mapping[str, Any], seat: int, match_id: str, line: int, sealed: str,
                  commitment: int) -> tuple[int, int]:
        """Open the hand sealed to ``seat`` on a deal line and check it against the
        published commitment (a dealer who sends another hand is caught here)."""
        got = open_sealed(seat_key(secrets["saltSeed"], seat), match_id, line, sealed)
        try:
            hand, salt = int(got["hand"]), int(got["salt"])
        except (KeyError, TypeError, ValueError):
            raise MalformedInput(f"seat {seat}: the sealed hand is not a hand and a salt") from None
        if commit(hand, salt) != commitment:
            raise CommitmentMismatch(f"seat {seat}: the sealed hand does not open the published commitment")
        return hand, salt

    # ---- dealer side
    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        if len(seat_public) != self.n_seats or len(seat_messages) != self.n_seats:
            raise MalformedInput(f"deal: expected {self.n_seats} seats' commitments and messages")
        for i, (pub, msg) in enumerate(zip(seat_public, seat_messages)):
            check_reveal(pub, msg, f"seat {i}")
        return {"matchId": match_id, "seats": [dict(m) for m in seat_messages]}

    def seed(self, dealer: Mapping[str, Any]) -> str:
        return combine_entropies([s["entropy"] for s in dealer["seats"]])

    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        return {"scheme": SCHEME, "commitments": seat_public, "seedCommitment": commit_seed(self.seed(dealer))}

    def check_header(self, deal: Any, n_seats: int) -> None:
        if not isinstance(deal, dict) or set(deal) != {"scheme", "commitments", "seedCommitment"} \
                or deal["scheme"] != SCHEME:
            raise MalformedInput(f"header: deal must be {{scheme: {SCHEME}, commitments, seedCommitment}}")
        cs = deal["commitments"]
        if not isinstance(cs, list) or len(cs) != n_seats or \
                not all(isinstance(c, dict) and set(c) == {"entropy", "saltSeed"} for c in cs):
            raise MalformedInput(f"header: deal commitments must be {n_seats} {{entropy, saltSeed}} objects")

    def _stream(self, seed: str, match_id: str) -> Any:
        """Seed 002's match_seed_v2 draw stream keyed by the seed (as text) and the game name."""
        return match_stream(seed, self.game, match_id, [])

    def deal_round(self, dealer: Mapping[str, Any], round_no: int) -> tuple[Optional[int], DealtRound, list[int]]:
        """The starting draw, round ``round_no``'s deal and each seat's hand salt."""
        stream = self._stream(self.seed(dealer), dealer["matchId"])
        start = self.dealing.start(stream)
        dealt = None
        for _ in range(round_no):
            dealt = self.dealing.round(stream)
        assert dealt is not None
        salts = [hand_salt(s["saltSeed"], round_no) for s in dealer["seats"]]
        return start, dealt, salts

    def sealed_hands(self, dealer: Mapping[str, Any], dealt: DealtRound, salts: list[int], line: int) -> tuple[str, ...]:
        return tuple(seal(seat_key(s["saltSeed"], i), dealer["matchId"], line,
                          {"hand": str(dealt.hands[i]), "salt": str(salts[i])})
                     for i, s in enumerate(dealer["seats"]))

    # ---- the closing line
    def closing_data(self, dealer: Mapping[str, Any]) -> dict[str, Any]:
        return {"seats": [{"entropy": s["entropy"], "saltSeed": s["saltSeed"]} for s in dealer["seats"]],
                "seed": self.seed(dealer)}

    def check_closing(self, header: Mapping[str, Any], data: Any, ledger: Any) -> None:
        """The reveal opens every commitment and the seed recomputes every deal."""
        if not isinstance(data, dict) or set(data) != {"seats", "seed"}:
            raise MalformedInput("reveal: expected seats and seed")
        seats, deal = data["seats"], header["deal"]
        if not isinstance(seats, list) or len(seats) != self.n_seats:
            raise MalformedInput(f"reveal: expected {self.n_seats} seats")
        for i, rv in enumerate(seats):
            check_reveal(deal["commitments"][i], rv, f"seat {i}")
        seed = combine_entropies([rv["entropy"] for rv in seats])
        if data["seed"] != seed:
            raise CommitmentMismatch("reveal: the seed is not the combination of the revealed entropies")
        if commit_seed(seed) != deal["seedCommitment"]:
            raise CommitmentMismatch("the combined entropies do not give the committed seed")
        stream = self._stream(seed, header["matchId"])
        start = self.dealing.start(stream)
        if ledger.dealt and ledger.start != start:
            raise CommitmentMismatch(f"the first deal named starting draw {ledger.start}, the seed gives {start}")
        for round_no, rnd in enumerate(ledger.dealt, start=1):
            dealt = self.dealing.round(stream)
            got = [commit(dealt.hands[i], hand_salt(seats[i]["saltSeed"], round_no)) for i in range(self.n_seats)]
            if got != rnd.commitments or dealt.board != rnd.board:
                raise CommitmentMismatch(f"round {round_no}: the seed's deal does not open the hand commitments")
