"""``DiceRoll``: the house-blind roll of Liar's Dice, a deal scheme of the match engine.

Nobody but a seat learns its dice, and nobody, the seat included, can choose them:

1. **Secret** (once, in the seat's join): each seat commits a secret,
   ``Poseidon(secret, salt)``; the header lists every seat's commitment and each seat
   checks its own is there.
2. **Entropy** (every round ``w``, while the rules wait for a roll): each seat still in
   writes ``roll.commit`` — ``SHA-256(label, match, w, seat, entropy)`` of 32 fresh bytes —
   and, once every seat still in has committed, ``roll.open``: the entropy itself, checked
   against its commitment. The joint entropy is ``SHA-256(label, match, w, every opening in
   seat order) mod r``: fixed once the first opening is written, steerable by nobody who
   committed before seeing the others'. A seat that withholds its opening (or any line of
   the roll) past ``limits.deal`` is timed out (``roll.timeout``) and places last: withholding
   is a fault.
3. **Dice** (``roll.dice``, each seat still in): a ``dice.roll.v1`` proof that its dice
   commitment holds the dice derived from its committed secret and the joint entropy
   (``statements.py``). The proof rides in the line's data and is checked here, under the
   header's key, bound to the line (its context), signed by the seat.

Then the engine's dealer writes the rules' ``roll`` line (no proof: the dice were proven in
the seats' lines) and the round starts with the dice commitments the scheme holds
(:meth:`DiceRoll.dice_commitments`). A dealer that does not write it is timed out the same
way (a fault of the house: settled on the standing). Nothing is revealed, ever: a Dudo is
decided by each seat's ``dice.count.v1`` proof against its commitment.

A seat's secrets are JSON-safe: the secret and its salt, a 32-byte seed from which each
round's entropy and dice salt are derived (HMAC), and each round's dice once made.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets as pysecrets
from dataclasses import dataclass, replace
from typing import Any, Callable, ClassVar, Mapping, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, OutOfOrder
from zkbluff.field import r
from zkbluff.gadgets import native as nat
from zkbluff.games.engine.rules import Result
from zkbluff.games.engine.deal_clock import OneLineDealClock, last_at_fault
from zkbluff.games.engine.spec import DealScheme, Role
from zkbluff.games.liars_dice.statements import ROLL_ID, STATEMENTS, derive_dice, pack_dice
from zkbluff.protocol.envelope import check_envelope

SCHEME = "liars-dice-roll.v1"
TRUST = ("commit-reveal roll proven by each seat: every seat commits a secret in its join, then every round "
         "each seat commits and then opens fresh entropy (withholding is a fault) and proves with dice.roll.v1 "
         "that its dice commitment holds the dice derived from its secret and the joint entropy; the house sees "
         "only commitments, nobody can choose a die, and no die is ever revealed (a Dudo is decided by "
         "dice.count.v1 proofs)")

COMMIT, OPEN, DICE, TIMEOUT = "roll.commit", "roll.open", "roll.dice", "roll.timeout"
ENTROPY_LABEL = "zkbluff:liars-dice:entropy:v1"
JOINT_LABEL = "zkbluff:liars-dice:joint:v1"


def entropy_commitment(match_id: str, round_no: int, seat: int, entropy: str) -> str:
    """The hex SHA-256 a seat commits its round's entropy (hex) with."""
    return hashlib.sha256(f"{ENTROPY_LABEL}:{match_id}:{round_no}:{seat}:{entropy}".encode()).hexdigest()


def joint_entropy(match_id: str, round_no: int, openings: tuple[Optional[str], ...]) -> int:
    """The round's joint entropy: SHA-256 of every seat's opening (``-`` for a seat out), mod r."""
    parts = ":".join(o if o is not None else "-" for o in openings)
    return int.from_bytes(hashlib.sha256(f"{JOINT_LABEL}:{match_id}:{round_no}:{parts}".encode()).digest(),
                          "big") % r


def _derived(secrets: Mapping[str, Any], what: str, match_id: str, round_no: int) -> bytes:
    return hmac.digest(bytes.fromhex(secrets["seed"]), f"zkbluff:liars-dice:{what}:{match_id}:{round_no}".encode(),
                       hashlib.sha256)


def field_text(v: Any) -> bool:
    """Whether ``v`` is a field element written as a canonical decimal string."""
    return isinstance(v, str) and re.fullmatch(r"0|[1-9][0-9]{0,76}", v) is not None and int(v) < r


def _hex32(v: Any, what: str) -> str:
    if not isinstance(v, str) or len(v) != 64 or any(c not in "0123456789abcdef" for c in v):
        raise MalformedInput(f"{what}: 64 lowercase hex digits, got {v!r:.80}")
    return v


@dataclass(frozen=True)
class RollPublic:
    """The roll's public state (``ledger.deal``): the round being rolled, each seat's
    entropy commitment and opening, the joint entropy, each seat's dice commitment, and a
    fault (a seat or the dealer timed out)."""

    round: int = 0
    commits: tuple[Optional[str], ...] = ()
    opens: tuple[Optional[str], ...] = ()
    entropy: Optional[int] = None
    dice: tuple[Optional[int], ...] = ()
    fault: Optional[str] = None
    fault_line: Optional[int] = None
    fault_seat: Optional[int] = None
    proven: bool = False


class DiceRoll(OneLineDealClock, DealScheme):
    """The roll for ``n_seats`` seats (see the module)."""

    closing: ClassVar[Optional[str]] = None
    trust: ClassVar[str] = TRUST
    timeout_kind: ClassVar[str] = TIMEOUT
    line_roles: ClassVar[Mapping[str, Role]] = {COMMIT: Role.SEAT, OPEN: Role.SEAT, DICE: Role.SEAT,
                                                TIMEOUT: Role.REFEREE}
    line_fields: Mapping[str, frozenset[str]] = {
        COMMIT: frozenset({"round", "commitment"}), OPEN: frozenset({"round", "entropy"}),
        DICE: frozenset({"round", "dice", "proof"}), TIMEOUT: frozenset({"seat", "line", "since", "deadline"})}

    def __init__(self, n_seats: int):
        self.n_seats = n_seats

    statement_ids = [ROLL_ID]

    # ---------------------------------------------------------------- the header
    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        return {"scheme": SCHEME, "secrets": [p.get("secret") for p in seat_public]}

    def check_header(self, deal: Any, n_seats: int) -> None:
        if not isinstance(deal, dict) or set(deal) != {"scheme", "secrets"} or deal["scheme"] != SCHEME:
            raise MalformedInput(f"header: deal must be {{scheme: {SCHEME!r}, secrets}}, got {deal!r:.200}")
        s = deal["secrets"]
        if not isinstance(s, list) or len(s) != n_seats or \
                not all(field_text(c) for c in s):
            raise MalformedInput(f"header: deal.secrets must be {n_seats} field elements (decimal strings)")

    def check_seat_header(self, deal: Any, seat: int, secrets: Mapping[str, Any]) -> None:
        if deal["secrets"][seat] != self.seat_public(secrets)["secret"]:
            raise CommitmentMismatch(f"header: seat {seat}'s secret commitment is not the one it joined with")

    def new_public(self) -> RollPublic:
        return RollPublic()

    def ready(self, ledger: Any) -> bool:
        return ledger.deal.fault is None

    # ---------------------------------------------------------------- the state of play
    def wanted(self, view: Any) -> Optional[tuple[int, tuple[int, ...]]]:
        """``(round, dice held per seat)`` of the roll the rules wait for, or None."""
        if view.over:
            return None
        s = view.rules.public_state()
        if s.phase.value != "roll":
            return None
        return s.round + 1, tuple(s.dice)

    def current(self, view: Any) -> Optional[tuple[RollPublic, int, tuple[int, ...]]]:
        """The roll's public state for the wanted round (fresh when none is under way)."""
        w = self.wanted(view)
        pub: RollPublic = view.ledger.deal
        if w is None or pub.fault is not None:
            return None
        if pub.round != w[0]:
            n = self.n_seats
            pub = RollPublic(w[0], (None,) * n, (None,) * n, None, (None,) * n)
        return pub, w[0], w[1]

    def owed(self, view: Any) -> Optional[tuple[str, list[Optional[int]], int]]:
        """``(kind, seats that owe it, round)``: the line the roll waits for (seats None:
        the dealer's ``roll``), or None."""
        cur = self.current(view)
        if cur is None:
            return None
        pub, w, held = cur
        standing = [s for s in range(self.n_seats) if held[s] > 0]
        for kind, got in ((COMMIT, pub.commits), (OPEN, pub.opens), (DICE, pub.dice)):
            missing: list[Optional[int]] = [s for s in standing if got[s] is None]
            if missing:
                return kind, missing, w
        return "roll", [None], w

    def complete(self, ledger: Any, round_no: int) -> bool:
        pub: RollPublic = ledger.deal
        return pub.fault is None and pub.round == round_no and pub.entropy is not None and \
            all(d is not None for c, d in zip(pub.commits, pub.dice) if c is not None)

    def dice_commitments(self, ledger: Any, round_no: int) -> list[Optional[int]]:
        """Each seat's dice commitment of the round (None for a seat out); :class:`IllegalMove`
        before every seat still in has proven its roll."""
        if not self.complete(ledger, round_no):
            raise IllegalMove(f"roll: round {round_no}'s dice are not all proven (no round starts before)")
        return list(ledger.deal.dice)

    # ---------------------------------------------------------------- the table (referee side)
    def check_line(self, view: Any, kind: str, seat: Optional[int], event: Mapping[str, Any]) -> None:
        data = event.get("data")
        if kind == TIMEOUT:
            self._check_timeout(view, data, event)
            return
        owed, cur = self.owed(view), self.current(view)
        if owed is None or cur is None:
            raise IllegalMove(f"{kind}: no roll is under way")
        want, seats, w = owed
        if kind != want or seat not in seats:
            raise OutOfOrder(f"{kind} from seat {seat}: the roll waits for {want} from seat(s) {seats} (round {w})")
        assert seat is not None
        if not isinstance(data, dict) or set(data) != self.line_fields[kind]:
            raise MalformedInput(f"{kind}: data fields {sorted(data) if isinstance(data, dict) else data!r:.80}, "
                                 f"expected {sorted(self.line_fields[kind])}")
        if data["round"] != w or type(data["round"]) is not int:
            raise IllegalMove(f"{kind}: round {data['round']!r:.20}, the roll is round {w} (a replayed line)")
        pub, _, held = cur
        if kind == COMMIT:
            pub = replace(pub, commits=_set(pub.commits, seat, _hex32(data["commitment"], kind)))
        elif kind == OPEN:
            entropy = _hex32(data["entropy"], kind)
            if entropy_commitment(view.match_id, w, seat, entropy) != pub.commits[seat]:
                raise CommitmentMismatch(f"roll.open: seat {seat}'s entropy does not open its commitment")
            pub = replace(pub, opens=_set(pub.opens, seat, entropy))
            if all(o is not None for c, o in zip(pub.commits, pub.opens) if c is not None):
                pub = replace(pub, entropy=joint_entropy(view.match_id, w, pub.opens))
        else:
            pub = replace(pub, dice=_set(pub.dice, seat, self._check_dice(view, seat, pub, held[seat], data, event)))
        view.ledger.deal = pub

    def _check_dice(self, view: Any, seat: int, pub: RollPublic, n_dice: int, data: Mapping[str, Any],
                    event: Mapping[str, Any]) -> int:
        text = data["dice"]
        if not field_text(text):
            raise MalformedInput(f"roll.dice: dice must be a field element as a decimal string, got {text!r:.80}")
        dice = int(text)
        assert pub.entropy is not None
        pinned = {"secret_commitment": int(view.header["deal"]["secrets"][seat]), "entropy": pub.entropy,
                  "n_dice": n_dice, "dice_commitment": dice}
        env, _ = check_envelope(data["proof"], statement=ROLL_ID, vk=view.vks[ROLL_ID], names=STATEMENTS[0].public,
                                pinned=pinned, match_id=view.match_id, line=event["n"], prev=event["prev"],
                                signer=seat, verify_now=view.verify_now)
        if not view.verify_now:
            view.batch.add(view.vks[ROLL_ID], env, event["n"])
        view.n_proofs += 1
        return dice

    # ---- time
    def owing_seat(self, who: Any) -> Optional[int]:
        """The first of the seats that owe the line (None: the dealer owes its ``roll``)."""
        first: Optional[int] = who[0]
        return first

    def _check_timeout(self, view: Any, data: Any, event: Mapping[str, Any]) -> None:
        expected = self.check_timeout_line(view, data, event)
        seat = expected["seat"]
        who = "the dealer" if seat is None else f"seat {seat}"
        view.ledger.deal = replace(view.ledger.deal, fault=f"{who} sent no {expected['line']} by the deadline",
                                   fault_line=event["n"], fault_seat=seat, proven=seat is None)

    def outcome(self, ledger: Any, scores: tuple[int, ...],
                standing: Optional[tuple[int, ...]] = None) -> Optional[Result]:
        """Settled on the standing (the dice held): the dealer at fault worsens no seat's place; a
        seat at fault places strictly last (withholding cannot lift a seat or tie a leader).
        Without a standing: the seat at fault 2, every other seat 1."""
        pub: RollPublic = ledger.deal
        if pub.fault is None:
            return None
        if pub.fault_seat is None and standing is not None:
            return Result(tuple(standing), scores, f"the roll ended the match: {pub.fault}; settled on the dice held")
        if standing is not None and pub.fault_seat is not None:
            return Result(last_at_fault(tuple(standing), pub.fault_seat), scores,
                          f"the roll ended the match: {pub.fault}; settled on the dice held, seat {pub.fault_seat} last")
        return Result(tuple(2 if s == pub.fault_seat else 1 for s in range(self.n_seats)), scores,
                      f"the roll ended the match: {pub.fault}")

    def fault(self, ledger: Any) -> Optional[tuple[int, str]]:
        pub: RollPublic = ledger.deal
        if pub.fault is None or pub.fault_line is None or not pub.proven:
            return None
        return pub.fault_line, pub.fault

    # ---------------------------------------------------------------- the engine's dealer: nothing secret
    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"matchId": match_id}

    # ---------------------------------------------------------------- the seats
    def seat_secrets(self) -> dict[str, Any]:
        return {"secret": str(pysecrets.randbelow(r)), "salt": str(pysecrets.randbelow(r)),
                "seed": pysecrets.token_bytes(32).hex(), "dice": {}}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {"secret": str(nat.commit(int(secrets["secret"]), int(secrets["salt"])))}

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # the house gets nothing

    def seat_entropy(self, secrets: Mapping[str, Any], match_id: str, round_no: int) -> str:
        return _derived(secrets, "entropy", match_id, round_no).hex()

    def seat_line_in(self, secrets: dict[str, Any], seat: int, view: Any, prover: Any,
                     clock: Callable[[], float]) -> Optional[tuple[str, dict[str, Any], float]]:
        owed = self.owed(view)
        if owed is None or seat not in owed[1]:
            return None
        kind, _, w = owed
        match_id = view.match_id
        if kind == COMMIT:
            entropy = self.seat_entropy(secrets, match_id, w)
            return COMMIT, {"round": w, "commitment": entropy_commitment(match_id, w, seat, entropy)}, clock()
        if kind == OPEN:
            return OPEN, {"round": w, "entropy": self.seat_entropy(secrets, match_id, w)}, clock()
        cur = self.current(view)
        assert cur is not None and cur[0].entropy is not None
        n_dice = cur[2][seat]
        dice_salt = int.from_bytes(_derived(secrets, "dice-salt", match_id, w), "big") % r
        inputs = {"secret": int(secrets["secret"]), "secret_salt": int(secrets["salt"]), "dice_salt": dice_salt,
                  "entropy": cur[0].entropy, "n_dice": n_dice}
        dice = derive_dice(int(secrets["secret"]), cur[0].entropy, n_dice)
        commitment = nat.commit(pack_dice(dice), dice_salt)
        envelope = prover.prove(ROLL_ID, inputs, match_id, view.next_line, view.head, seat)
        secrets.setdefault("dice", {})[str(w)] = [pack_dice(dice), str(dice_salt)]
        return DICE, {"round": w, "dice": str(commitment), "proof": envelope}, clock()

    def seat_dice(self, secrets: Mapping[str, Any], seat: int, round_no: int) -> tuple[int, int]:
        """A seat's own dice of ``round_no`` as ``(pack, salt)``: the ones its roll proof committed."""
        got = secrets.get("dice", {}).get(str(round_no))
        if got is None:
            raise CommitmentMismatch(f"seat {seat}: it proved no roll in round {round_no}")
        return int(got[0]), int(got[1])


def _set(values: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return tuple(v if k == i else x for k, x in enumerate(values))


__all__ = ["DiceRoll", "RollPublic", "SCHEME", "TRUST", "entropy_commitment", "joint_entropy"]
