"""The one referee: checks each transcript line of any game against its spec, the rules,
the commitments the table holds, the line's signature and its proof, then applies it.

The live table runs every line through it before writing; every party keeps its own
copy to follow the public state; ``zkbluff transcript verify`` runs a whole file through
it offline (proofs collected into one batch per key). One piece of code decides what is
legal, for every game.

A line is checked in this order, before any pairing: its number and link, who may make
it (a seat's action on a line naming seat null is refused: the dealer and referee may
never act for a seat), its signature under that party's key from the header, the action's
typed data, the rules, each proof envelope against what the table holds.

A line carries ``proofs`` (a list of envelopes, in the order the spec demands) exactly when
its action owes proofs.

Keys: the header's verifying keys are accepted only under the referee's
:class:`~zkbluff.ceremony.trust.TrustContext` (by default the pinned project keys; a
per-match ceremony's keys or a deliberate private key set only when the caller adds
them): any other key refuses the header (:class:`~zkbluff.errors.UntrustedKey`, exit 1),
so no proof is ever checked under a key the verifier does not trust. A header may carry
``ceremony`` (the digest of a per-match ceremony record, :mod:`zkbluff.ceremony.match`);
the caller verifies that record and adds its keys to the context.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from zkbluff.ceremony.trust import Trust, TrustContext, check_key
from zkbluff.errors import IllegalMove, MalformedInput, ZkbluffError
from zkbluff.games.engine.rules import Action, Result
from zkbluff.games.engine.spec import GameSpec, Role
from zkbluff.games.engine.registry import spec_for
from zkbluff.groth16 import VerifyingKey
from zkbluff.protocol.envelope import ProofBatch, check_envelope
from zkbluff.protocol.signing import check_line_signature, check_public_key
from zkbluff.protocol.transcript import GENESIS, canonical, line_hash
from zkbluff.statements import get_statement

HEADER_FIELDS = {"game", "options", "matchId", "seats", "trust", "parties", "keys", "deal"}
#: optional header fields: ``ceremony`` names a per-match ceremony record (``--keys match``)
OPTIONAL_HEADER_FIELDS = {"ceremony"}
END = "end"


def result_data(result: Result) -> dict[str, Any]:
    return {"placements": list(result.placements), "scores": list(result.scores), "reason": result.reason}


class Referee:
    """Public state of one match and the check of every line. ``verify_now``: verify each
    proof as it comes (the live table); otherwise collect them into :attr:`batch`."""

    def __init__(self, header_event: Mapping[str, Any], verify_now: bool = True,
                 trust: Optional[TrustContext] = None):
        if header_event.get("n") != 1 or header_event.get("prev") != GENESIS \
                or header_event.get("action") != "header" or header_event.get("seat") is not None:
            raise MalformedInput("the first line must be the header (line 1, seat null)")
        data = header_event.get("data")
        if not isinstance(data, dict) or not HEADER_FIELDS <= set(data) <= HEADER_FIELDS | OPTIONAL_HEADER_FIELDS:
            got = sorted(data) if isinstance(data, dict) else type(data).__name__
            raise MalformedInput(f"header: fields {got}, expected {sorted(HEADER_FIELDS)}")
        self.header = data
        self.spec: GameSpec = spec_for(data["game"], data["options"])
        self.match_id = data["matchId"]
        if not isinstance(self.match_id, str) or not self.match_id:
            raise MalformedInput("header: matchId must be a non-empty string")
        seats = data["seats"]
        if not isinstance(seats, list) or len(seats) != self.spec.n_seats or \
                not all(isinstance(s, str) for s in seats):
            raise MalformedInput(f"header: seats must be {self.spec.n_seats} names")
        self.seat_names: list[str] = seats
        parties = data["parties"]
        if not isinstance(parties, dict) or set(parties) != {"referee", "dealer", "seats"} or \
                not isinstance(parties["seats"], list) or len(parties["seats"]) != self.spec.n_seats:
            raise MalformedInput(f"header: parties must list the referee's, the dealer's and "
                                 f"{self.spec.n_seats} seats' public keys")
        self.referee_key = check_public_key(parties["referee"], "the referee's public key")
        self.dealer_key = check_public_key(parties["dealer"], "the dealer's public key")
        self.seat_keys = [check_public_key(k, f"seat {i}'s public key") for i, k in enumerate(parties["seats"])]
        check_line_signature(dict(header_event), self.referee_key, "the referee")
        keys = data["keys"]
        if not isinstance(keys, dict) or set(keys) != set(self.spec.statements()):
            raise MalformedInput(f"header: expected keys for {sorted(self.spec.statements())}")
        self.vks = {k: VerifyingKey.from_json(v) for k, v in keys.items()}
        ctx = trust if trust is not None else TrustContext.default()
        #: why each key is trusted (``Trust.loud`` set for a private key set)
        self.trust: dict[str, Trust] = {k: check_key(k, self.vks[k], ctx) for k in sorted(self.vks)}
        self.spec.deal.check_header(data["deal"], self.spec.n_seats)
        self.rules = self.spec.new_rules()
        self.ledger = self.spec.new_ledger()
        self.verify_now = verify_now
        self.batch = ProofBatch()
        self.n_proofs = 0
        self.ended = False
        self.closed = False
        self.head = line_hash(canonical(dict(header_event)))
        self.next_line = 2

    # ---- who may make a line
    def role_of(self, kind: Any) -> Role:
        if not isinstance(kind, str):
            raise MalformedInput(f"action must be a string, got {kind!r:.40}")
        if kind == END:
            return Role.REFEREE
        if kind is not None and kind == self.spec.deal.closing:
            return Role.DEALER
        if kind == "header":
            raise IllegalMove("a second header")
        self.spec.action_class(kind)  # an unknown kind is malformed
        return self.spec.roles[kind]

    def key_of(self, role: Role, seat: Optional[int]) -> tuple[str, str]:
        if role is Role.SEAT:
            assert seat is not None
            return self.seat_keys[seat], f"seat {seat} ({self.seat_names[seat]})"
        if role is Role.DEALER:
            return self.dealer_key, "the dealer"
        return self.referee_key, "the referee"

    @property
    def complete(self) -> bool:
        """The match is over and every closing line is written."""
        return self.ended and (self.spec.deal.closing is None or self.closed)

    # ---- the check
    def apply(self, event: Mapping[str, Any]) -> tuple[Optional[Action], list[dict[str, int]]]:
        """Check one line and apply it; return its action (None for end and closing lines)
        and its proofs' publics by name. Raises a :class:`~zkbluff.errors.ZkbluffError` and
        changes nothing if the line is refused (data of the wrong shape anywhere is
        :class:`MalformedInput`, never a stray ``KeyError``)."""
        try:
            return self._apply(event)
        except ZkbluffError:
            raise
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise MalformedInput(f"{event.get('action')!r:.40}: malformed line ({type(exc).__name__}: {exc})") from None

    def _apply(self, event: Mapping[str, Any]) -> tuple[Optional[Action], list[dict[str, int]]]:
        if not isinstance(event, dict):
            raise MalformedInput("a line must be an object")
        if event.get("n") != self.next_line or event.get("prev") != self.head:
            raise IllegalMove(f"line {event.get('n')!r} does not follow line {self.next_line - 1} "
                              f"(expected number {self.next_line} linked to its hash)")
        if self.closed:
            raise IllegalMove("nothing may follow the closing line")
        kind, seat, data = event.get("action"), event.get("seat"), event.get("data")
        role = self.role_of(kind)
        if role is Role.SEAT:
            if seat is None:
                raise IllegalMove(f"{kind}: a seat's action; the dealer or referee (seat null) may not make it")
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.spec.n_seats:
                raise MalformedInput(f"{kind}: seat must be 0..{self.spec.n_seats - 1}, got {seat!r}")
        elif seat is not None:
            raise IllegalMove(f"{kind}: the {role.value}'s line, but it names seat {seat!r}")
        public_key, who = self.key_of(role, seat)
        check_line_signature(dict(event), public_key, who)
        action: Optional[Action] = None
        publics: list[dict[str, int]] = []
        if kind == END:
            self._end(event)
        elif kind == self.spec.deal.closing:
            if not self.ended:
                raise IllegalMove(f"{kind}: before the end")
            if "proofs" in event:
                raise IllegalMove(f"{kind}: an unexpected proof")
            self.spec.deal.check_closing(self.header, data, self.ledger)
            self.closed = True
        else:
            if self.ended or self.rules.over:
                raise IllegalMove(f"{kind}: the match is over")
            action = self.spec.action_class(kind).from_data(data)
            self.rules.check(seat, action)
            demands = self.spec.demand(self.rules, self.ledger, seat, action)
            envelopes = event.get("proofs", [])
            if bool(demands) != ("proofs" in event):
                raise IllegalMove(f"{kind}: {'a proof is missing' if demands else 'an unexpected proof'}")
            if not isinstance(envelopes, list) or len(envelopes) != len(demands):
                raise MalformedInput(f"{kind}: proofs must be a list of {len(demands)} envelope(s)")
            checked = []
            for demand, obj in zip(demands, envelopes):
                stmt = get_statement(demand.statement)
                env, named = check_envelope(
                    obj, statement=demand.statement, vk=self.vks[demand.statement], names=stmt.public,
                    pinned=demand.pinned, match_id=self.match_id, line=event["n"], prev=event["prev"],
                    signer=seat, verify_now=self.verify_now)
                checked.append(env)
                publics.append(named)
            if not self.verify_now:
                for demand, env in zip(demands, checked):
                    self.batch.add(self.vks[demand.statement], env, event["n"])
            self.n_proofs += len(demands)
            self.rules.apply(seat, action)
            self.spec.record(self.ledger, seat, action, publics)
        self.head = line_hash(canonical(dict(event)))
        self.next_line += 1
        return action, publics

    def _end(self, event: Mapping[str, Any]) -> None:
        if self.ended:
            raise IllegalMove("end: a second end")
        if not self.rules.over:
            raise IllegalMove("end: the match is not over by the rules")
        if "proofs" in event:
            raise IllegalMove("end: an unexpected proof")
        result = self.rules.result()
        assert result is not None
        expected = result_data(result)
        if event.get("data") != expected:
            raise IllegalMove(f"end: recorded {event.get('data')!r:.120}, the rules give {expected}")
        self.ended = True
