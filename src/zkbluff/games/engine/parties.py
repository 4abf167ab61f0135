"""The parties of a match: each :class:`Seat`, the :class:`Dealer` and the
:class:`RefereeParty`. Each holds only its own secrets (its signing key, made on its own
side; a seat's deal secrets and cards; the dealer's view of the deal) and a copy of the
public state that it rebuilds from the lines it is sent. They talk only by JSON-safe
messages (dicts): a join, a private message to the dealer, a signed line. In-process
today; a network server passes the same messages over a socket.
"""
from __future__ import annotations

import secrets as pysecrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.engine.referee import END, Referee, result_data
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.spec import GameSpec, Move, Role
from zkbluff.groth16 import ProvingKey, prove
from zkbluff.protocol.context import context_value
from zkbluff.protocol.envelope import make_envelope
from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.protocol.transcript import GENESIS
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys


class Prover:
    """A party's prover: the proving keys it loaded (public material) and the backend."""

    def __init__(self, key_folder: Optional[Path] = None, backend: Any = None,
                 say: Optional[Callable[[str], None]] = None):
        self.key_folder, self.backend, self.say = key_folder, backend, say
        self.last_seconds = 0.0

    def key(self, statement: str) -> ProvingKey:
        return load_keys(statement, self.key_folder, say=self.say)

    def prove(self, statement: str, inputs: Mapping[str, int], match_id: str, line: int, prev: str,
              signer: Optional[int]) -> dict[str, Any]:
        """The envelope of a proof of ``statement`` bound to the given line."""
        pk = self.key(statement)
        system, witness = get_statement(statement).build({**inputs, "context": context_value(match_id, line, prev)})
        assert witness is not None
        t = time.perf_counter()
        proof = prove(pk, witness, backend=self.backend)
        self.last_seconds = time.perf_counter() - t
        return make_envelope(statement, pk.vk, witness[1:1 + system.n_public], proof, signer)


class _Party:
    """What every party shares: its key and its copy of the public state."""

    def __init__(self, spec: GameSpec, key: Optional[SigningKey]):
        self.spec = spec
        self.key = key or SigningKey.generate()  # made here, on the party's own side
        self.view: Optional[Referee] = None

    @property
    def public_key(self) -> str:
        return self.key.public_hex

    def _follow(self, event: Mapping[str, Any]) -> tuple[Any, dict[str, int]]:
        """Check and apply a public line to this party's own view (signatures, rules and
        proofs, verified at once: no party takes another's word for a line)."""
        if self.view is None:
            self.view = Referee(event, verify_now=True)
            return None, {}
        return self.view.apply(event)

    def _line(self, seat: Optional[int], kind: str, data: dict[str, Any],
              proof: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        assert self.view is not None
        event: dict[str, Any] = {"n": self.view.next_line, "prev": self.view.head, "seat": seat, "action": kind,
                                 "data": data}
        if proof is not None:
            event["proof"] = proof
        return sign_line(self.key, event)

    def _proof_for(self, move: Move, seat: Optional[int], prover: Prover) -> Optional[dict[str, Any]]:
        assert self.view is not None
        demand = self.spec.demand(self.view.rules, self.view.ledger, seat, move.action)
        if demand is None:
            return None
        if move.proof_inputs is None:
            raise IllegalMove(f"{move.action.kind}: needs a proof of {demand.statement} but no inputs were given")
        return prover.prove(demand.statement, move.proof_inputs, self.view.match_id, self.view.next_line,
                            self.view.head, seat)


class Seat(_Party):
    """One player's client: its key, its deal secrets, its cards, its prover. It sees the
    public lines and the sealed messages addressed to it, nothing else."""

    def __init__(self, spec: GameSpec, seat: int, name: str = "player", prover: Optional[Prover] = None,
                 key: Optional[SigningKey] = None, deal_secrets: Optional[dict[str, Any]] = None,
                 private: Optional[dict[str, Any]] = None):
        super().__init__(spec, key)
        self.seat, self.name = seat, name
        self.prover = prover or Prover()
        self.deal_secrets = deal_secrets if deal_secrets is not None else spec.deal.seat_secrets()
        self.private = private if private is not None else spec.new_private()
        self._pending: Optional[tuple[int, Mapping[str, Any]]] = None

    def join(self) -> dict[str, Any]:
        """The public join message: name, public key, the deal's public commitments."""
        return {"type": "join", "seat": self.seat, "name": self.name, "publicKey": self.public_key,
                "deal": self.spec.deal.seat_public(self.deal_secrets)}

    def to_dealer(self) -> dict[str, Any]:
        """The private message for the dealer before the deal."""
        return {"type": "deal-secrets", "seat": self.seat, "to": "dealer",
                "body": self.spec.deal.seat_to_dealer(self.seat, self.deal_secrets)}

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> None:
        """Follow a public line; open what it carries for this seat."""
        first = self.view is None
        action, publics = self._follow(event)
        if first:
            assert self.view is not None
            if self.view.seat_keys[self.seat] != self.public_key:
                raise CommitmentMismatch(f"seat {self.seat}: the header lists another public key for this seat")
            return
        if restoring or action is None:
            return
        pending, self._pending = self._pending, None
        if event["seat"] == self.seat:
            if pending is None or pending[0] != event["n"]:
                raise CommitmentMismatch(f"seat {self.seat}: line {event['n']} is in this seat's name, "
                                         f"but this seat did not make it")
            self.private = {**self.private, **pending[1]}
        assert self.view is not None
        # every accepted line, its own included (a value its own proof fixed only once the
        # line's context was known, e.g. a card its seed picks for that line)
        self.private = self.spec.seat_receive(self.private, self.deal_secrets, self.seat, self.view.match_id,
                                              event, action, publics)

    def move(self, intent: Any) -> dict[str, Any]:
        """The signed line for ``intent`` (with its proof). Raises and changes nothing if
        the rules refuse it."""
        if self.view is None:
            raise IllegalMove("the match has not started")
        move = self.spec.seat_move(self.private, self.view.rules, self.seat, intent)
        self.view.rules.check(self.seat, move.action)
        proof = self._proof_for(move, self.seat, self.prover)
        line = self._line(self.seat, move.action.kind, move.action.to_data(), proof)
        self._pending = (line["n"], move.update)
        return line

    def observation(self) -> Any:
        assert self.view is not None
        return self.spec.observation(self.view.rules, self.private, self.seat)

    def export(self) -> dict[str, Any]:
        """This seat's own secrets, for its own resume file (never a message)."""
        return {"seat": self.seat, "name": self.name, "key": self.key.secret_hex(), "deal": self.deal_secrets,
                "private": self.private}

    @classmethod
    def restore(cls, spec: GameSpec, data: Mapping[str, Any], prover: Optional[Prover] = None) -> "Seat":
        try:
            return cls(spec, data["seat"], data["name"], prover, SigningKey.from_secret_hex(data["key"]),
                       dict(data["deal"]), dict(data["private"]))
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"seat secrets file: {exc}") from None


class Dealer(_Party):
    """Deals: it receives the seats' deal messages, publishes the deal's header part,
    proves each deal and seals each seat's cards to it, and writes the closing line."""

    def __init__(self, spec: GameSpec, prover: Optional[Prover] = None, key: Optional[SigningKey] = None,
                 state: Optional[dict[str, Any]] = None):
        super().__init__(spec, key)
        self.prover = prover or Prover()
        self.state = state

    def hello(self, match_id: str, joins: list[dict[str, Any]], messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Take the seats' messages; answer with the public key and the header's ``deal``."""
        publics = [j["deal"] for j in sorted(joins, key=lambda j: j["seat"])]
        bodies = [m["body"] for m in sorted(messages, key=lambda m: m["seat"])]
        self.state = self.spec.deal.dealer_start(match_id, publics, bodies)
        return {"type": "dealer-hello", "publicKey": self.public_key, "deal": self.spec.deal.header(self.state, publics)}

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> None:
        self._follow(event)

    def act(self) -> dict[str, Any]:
        """The dealer's next line (a deal with its proof and sealed hands)."""
        assert self.view is not None and self.state is not None
        move = self.spec.dealer_move(self.state, self.view.rules, self.view.ledger, self.view.match_id,
                                     self.view.next_line)
        self.view.rules.check(NO_SEAT, move.action)
        proof = self._proof_for(move, NO_SEAT, self.prover)
        return self._line(NO_SEAT, move.action.kind, move.action.to_data(), proof)

    def close(self) -> dict[str, Any]:
        assert self.view is not None and self.state is not None and self.spec.deal.closing is not None
        return self._line(NO_SEAT, self.spec.deal.closing, self.spec.deal.closing_data(self.state))

    def export(self) -> dict[str, Any]:
        return {"key": self.key.secret_hex(), "state": self.state}

    @classmethod
    def restore(cls, spec: GameSpec, data: Mapping[str, Any], prover: Optional[Prover] = None) -> "Dealer":
        try:
            return cls(spec, prover, SigningKey.from_secret_hex(data["key"]), data["state"])
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"dealer secrets file: {exc}") from None


@dataclass
class TimeLimits:
    proof: float = 60.0
    idle: float = 600.0


class RefereeParty(_Party):
    """Writes the header, checks every line before it is written (proofs verified at
    once), and writes the lines that are nobody's move: timeouts (by its clock) and the end."""

    def __init__(self, spec: GameSpec, key: Optional[SigningKey] = None, clock: Callable[[], float] = time.monotonic,
                 limits: Optional[TimeLimits] = None):
        super().__init__(spec, key)
        self.clock = clock
        self.limits = limits or TimeLimits()
        self.deadline = float("inf")

    def header(self, match_id: str, joins: list[dict[str, Any]], hello: Mapping[str, Any],
               keys: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        joins = sorted(joins, key=lambda j: j["seat"])
        if [j["seat"] for j in joins] != list(range(self.spec.n_seats)):
            raise MalformedInput(f"expected joins from seats 0..{self.spec.n_seats - 1}")
        data = {
            "game": self.spec.game, "options": dict(self.spec.options), "matchId": match_id,
            "seats": [j["name"] for j in joins], "trust": self.spec.deal.trust,
            "parties": {"referee": self.public_key, "dealer": hello["publicKey"],
                        "seats": [j["publicKey"] for j in joins]},
            "keys": dict(keys), "deal": hello["deal"],
        }
        return sign_line(self.key, {"n": 1, "prev": GENESIS, "seat": None, "action": "header", "data": data})

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> tuple[Any, dict[str, int]]:
        """Check and apply a line (raises, changing nothing, if it is refused)."""
        if self.view is None:
            self.view = Referee(event, verify_now=True)
            out: tuple[Any, dict[str, int]] = (None, {})
        else:
            out = self.view.apply(event)
        self._reset_deadline()
        return out

    def _reset_deadline(self) -> None:
        assert self.view is not None
        due = self.spec.timeout(self.view.rules)
        self.deadline = float("inf") if due is None else self.clock() + self.seconds(due[1])

    def seconds(self, limit: str) -> float:
        """A named limit: the table's :class:`TimeLimits` field, else the game's own
        (``GameSpec.time_limits``, e.g. a per-move timer the rules name)."""
        if hasattr(self.limits, limit):
            return float(getattr(self.limits, limit))
        return float(self.spec.time_limits[limit])

    def end_line(self) -> dict[str, Any]:
        assert self.view is not None
        result = self.view.rules.result()
        assert result is not None
        return self._line(None, END, result_data(result))

    def announce(self, action: Any) -> dict[str, Any]:
        """The referee's signed line for one of its own actions that no clock triggers
        (a game's connection events: a seat dropped or back). Raises :class:`IllegalMove`,
        writing nothing, unless the spec gives the action's kind to the referee and the
        rules accept it now."""
        assert self.view is not None
        if self.spec.roles.get(action.kind) is not Role.REFEREE:
            raise IllegalMove(f"{action.kind}: not a referee's action in {self.spec.game}")
        self.view.rules.check(NO_SEAT, action)
        return self._line(None, action.kind, action.to_data())

    def timeout_line(self) -> Optional[dict[str, Any]]:
        """The timeout line when the clock has passed the deadline of the seat to move."""
        assert self.view is not None
        if self.clock() < self.deadline:
            return None
        due = self.spec.timeout(self.view.rules)
        if due is None:
            return None
        return self._line(None, due[0].kind, due[0].to_data())

    def export(self) -> dict[str, Any]:
        return {"key": self.key.secret_hex()}

    @classmethod
    def restore(cls, spec: GameSpec, data: Mapping[str, Any], **kwargs: Any) -> "RefereeParty":
        try:
            return cls(spec, SigningKey.from_secret_hex(data["key"]), **kwargs)
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"referee secrets file: {exc}") from None


def new_match_id() -> str:
    return pysecrets.token_hex(8)
