"""A Bluffers seat's sealed automatic moves: the moves the referee plays for it when its
30 seconds run out and it is not there to make them (seed 003: "If your connection drops,
the match doesn't stop: when your turn comes, a move is played for you automatically").

The automatic move is one card of the seat's hand, picked by its own committed seed
(``card.pick.v1``) and shed from its hand (``card.play.v1``); nobody but the seat holds
the seed and the hand's opening, so only its own device can prove it, and it must do so
before the move is needed. Whenever its hand changes (the deal, its own play, its shed),
the seat proves a **chain** of automatic moves, one for each turn it can still have with
that hand (its size: at most 5), and leaves it with the referee (:func:`make_seal`; a
client plans it, proves it in the background and leaves it when proved:
:func:`plan_seal`, :func:`prove_seal`, :func:`adopt_seal`). So a seat away for several
turns is played for at each of them, and finds its hand where it left it:

- seal 0's proofs take the **sealed context** of the hand held now, :func:`sealed_context`
  of the context of the proof that made the hand commitment (the deal's, the play's, the
  shed's); seal k's take ``sealed_context`` of seal k-1's context, for the hand seal k-1
  leaves (its new hand commitment). That context is unique to the match, the line and its
  previous hash, and no line's own proof ever has it; a hand commitment is fresh each turn
  (a new salt), so seal k is valid for exactly one turn: the seat's next one after seal
  k-1 was played. Played on any other turn (before the one before it, after the seat moved
  itself, in another round) its context is not the table's (``proof.replayed``); the
  referee checks the whole chain on receipt (:func:`check_seal`) and plays one seal per
  timed-out turn, in order, dropping the rest once one is stale;
- the seat signs ``(match, seat, context, play commitment, new hand commitment)``
  (:func:`seal_message`); the line that plays it carries that signature, so the
  transcript shows the seat's own pre-committed move (``sealed.signature`` if not);
- the referee plays it only after that seat's ``timeout`` (the rules:
  ``sealed.early``), so the house cannot take a seat's turn from it.

Nobody learns the cards: a seal holds two commitments (salted Poseidon: hiding) and two
zero-knowledge proofs, the same publics the seat's own ``auto_move`` and ``shed`` would
put on the transcript. The seat knows its picks in advance, which gains it nothing: it
could play those cards itself. A seat whose seal is missing or does not verify falls back
to the timeout's automatic move by its own agent (and then the forfeit).

What an away seat owes and cannot seal (it forfeits when that line's limit runs out:
out, no points; see docs/bluffers.md, "What an away seat cannot seal"):

- its **reveal** when its play is called: a sealed opening would hand the referee the card
  before the call (the house's bots would call exactly the bluffs);
- its **share** of a pull (``revolver.share.v1``). It could be proved in advance (the share
  is ``Poseidon(seed, revolver, pull)``, fixed by the seat's committed seed; a sealed
  context would replace the line's as for a seal), but whoever holds it before the pull
  learns, with the other standing seats' shares, whether the pull fires: a house running
  every other seat (a person against the house's bots) would know each pull of the round
  in advance, in every round the seat left its shares, away or not, and its bots could
  call accordingly. The revolver's promise (nobody knows the bullet before the last share)
  is kept instead: a withheld share is the forfeit of the rules (the pull is re-run
  without the withholder);
- its **forced call** (``auto_move`` where it must call: a line only its agent signs; the
  pull that follows would need its share anyway);
- a **new round**: the new hand is sealed to the seat's own device; away, nobody can open
  it or seal its moves, and the chain of the round before is stale there. Its first turn
  times out and it forfeits at the ``idle`` limit, as a seat with no seal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from zkbluff.errors import IllegalMove, InvalidProof, MalformedInput
from zkbluff.fair.stream import sha256_hex
from zkbluff.field import r
from zkbluff.games.bluffers.proofs import PICK_ID, PLAY_ID, fresh_salt
from zkbluff.games.bluffers.rules import HAND_SIZE, Phase, SealedMove
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import prove
from zkbluff.protocol.envelope import make_envelope
from zkbluff.protocol.signing import verify_signature
from zkbluff.protocol.transcript import canonical
from zkbluff.statements import get_statement
from zkbluff.statements.revolver import picked_card_native

SEAL_DOMAIN = "zkbluff:sealed-move:v1:"
#: the longest chain a seat leaves (its hand's size: every turn it can have with one hand)
CHAIN = HAND_SIZE


def sealed_context(hand_context: int) -> int:
    """The context of a seal for the hand whose commitment a proof with context
    ``hand_context`` made (domain-separated: never a line's own context)."""
    return int(sha256_hex(f"{SEAL_DOMAIN}{hand_context}"), 16) % r


def seal_message(match_id: str, seat: int, context: int, play_commitment: int, hand_commitment: int) -> bytes:
    """The bytes a seat signs for its sealed move."""
    return (SEAL_DOMAIN + canonical({"matchId": match_id, "seat": seat, "context": str(context),
                                     "play": str(play_commitment), "hand": str(hand_commitment)})).encode()


def check_seal_signature(match_id: str, seat_key: str, action: SealedMove) -> None:
    """Raise :class:`IllegalMove` (``sealed.signature``) unless ``action.sig`` is the seat's
    signature of its sealed move."""
    message = seal_message(match_id, action.seat, action.context, action.play_commitment, action.hand_commitment)
    try:
        verify_signature(seat_key, message, action.sig, f"seat {action.seat}")
    except (InvalidProof, MalformedInput):
        raise IllegalMove(f"sealed_move: not seat {action.seat}'s own sealed move (its signature does not verify "
                          f"under the seat's key)", code="sealed.signature") from None


def _envelope(prover: Any, statement: str, inputs: Mapping[str, int], context: int, seat: int) -> dict[str, Any]:
    """A proof of ``statement`` bound to ``context`` (a seal's, not a line's). It touches
    nothing of the seat's (it may run in a thread of its own beside the seat's moves)."""
    pk = prover.key(statement)
    system, witness = get_statement(statement).build({**inputs, "context": context})
    assert witness is not None
    proof = prove(pk, witness, backend=prover.backend)
    return make_envelope(statement, pk.vk, witness[1:1 + system.n_public], proof, seat)


def _chain(private: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The seat's chain of seals still to be played (its secrets), first first (a seat file
    from before chains holds one ``seal``)."""
    chain = private.get("seals")
    if chain is None:
        one = private.get("seal")
        return [one] if one else []
    return list(chain)


def seal_due(seat: Any) -> Optional[int]:
    """The sealed context the seat's next chain starts from, or None when it needs none now:
    the match goes on, the seat holds cards in a round's turns (a call ends the round: its
    hand is then replaced), and its chain for this hand is not made."""
    view = seat.view
    if view is None or view.over or getattr(view.ledger, "hand_contexts", None) is None:
        return None
    rules, i = view.rules, seat.seat
    if rules.s.phase != Phase.TURN or not rules.s.alive[i] \
            or rules.s.hand_sizes[i] < 1 or not seat.private.get("hand"):
        return None
    hand_context = view.ledger.hand_contexts[i]
    if hand_context is None:
        return None
    context = sealed_context(hand_context)
    chain = _chain(seat.private)
    return None if chain and chain[0].get("context") == str(context) else context


@dataclass(frozen=True)
class SealPlan:
    """What a chain is made from, captured on the seat's own thread (:func:`plan_seal`):
    the proving (:func:`prove_seal`) reads nothing else, so it may run beside the seat."""
    seat: int
    match_id: str
    context: int            # the first seal's: the sealed context of the hand held now
    size: int               # the hand's size now
    hand: int
    hand_salt: int
    seed: int
    seed_salt: int
    length: int             # how many seals: min(size, CHAIN or the length asked)
    prover: Any
    key: Any


def plan_seal(seat: Any, length: Optional[int] = None) -> Optional[SealPlan]:
    """(The seat's side, cheap.) The plan of its chain for the hand it holds, or None if none
    is due (:func:`seal_due`): one seal per turn still to come with this hand, at most
    ``length`` (by default :data:`CHAIN`, the hand's size)."""
    context = seal_due(seat)
    if context is None:
        return None
    p, i = seat.private, seat.seat
    size = seat.view.rules.s.hand_sizes[i]
    return SealPlan(i, seat.view.match_id, context, size, p["hand"], p["handSalt"], p["seed"], p["seedSalt"],
                    min(size, CHAIN if length is None else length), seat.prover, seat.key)


def prove_seal(plan: SealPlan) -> list[dict[str, Any]]:
    """(Any thread: the proving.) The chain's seals with their secrets. Seal k is for the hand
    seal k-1 leaves: its context is ``sealed_context`` of seal k-1's, so it is playable only
    once seal k-1 was played and the seat timed out again at its own turn."""
    i, hand, hand_salt, context = plan.seat, plan.hand, plan.hand_salt, plan.context
    made: list[dict[str, Any]] = []
    for k in range(plan.length):
        card = 1 << picked_card_native(hand, plan.seed, context)
        play_salt, new_salt = fresh_salt(), fresh_salt()
        pick = _envelope(plan.prover, PICK_ID, {"hand": hand, "hand_salt": hand_salt, "play_salt": play_salt,
                                                "seed": plan.seed, "seed_salt": plan.seed_salt}, context, i)
        shed = _envelope(plan.prover, PLAY_ID, {"old_hand": hand, "old_salt": hand_salt, "play": card,
                                                "play_salt": play_salt, "new_salt": new_salt}, context, i)
        play_commitment, hand_commitment = commit(card, play_salt), commit(hand & ~card, new_salt)
        sig = plan.key.sign(seal_message(plan.match_id, i, context, play_commitment, hand_commitment))
        action = SealedMove(i, context, play_commitment, hand_commitment, sig)
        message = {"kind": action.kind, "data": action.to_data(), "proofs": [pick, shed]}
        made.append({"context": str(context), "card": card, "playSalt": play_salt, "handSalt": new_salt,
                     "size": plan.size - k, "message": message})
        hand, hand_salt, context = hand & ~card, new_salt, sealed_context(context)
    return made


def adopt_seal(seat: Any, plan: SealPlan, made: list[dict[str, Any]]) -> Optional[list[dict[str, Any]]]:
    """(The seat's side.) The chain to leave with the referee, its secrets (the cards, the
    salts) now in ``seat.private["seals"]`` (saved with the seat); None if the seat's hand
    changed since the plan (the chain is stale: plan again)."""
    if seal_due(seat) != plan.context or seat.private.get("hand") != plan.hand:
        return None
    seat.private = {**seat.private, "seal": None, "seals": made}
    return [m["message"] for m in made]


def make_seal(seat: Any, length: Optional[int] = None) -> Optional[list[dict[str, Any]]]:
    """(The seat's side, all at once.) The seat's chain of sealed automatic moves for the hand
    it holds (:func:`plan_seal`, :func:`prove_seal`, :func:`adopt_seal`), or None."""
    plan = plan_seal(seat, length)
    return None if plan is None else adopt_seal(seat, plan, prove_seal(plan))


def pending_seal(seat: Any) -> Optional[list[dict[str, Any]]]:
    """(The seat's side.) The rest of the chain it made for the hand it holds now, if its
    turns with that hand are still to come (to leave again on a new connection), else None."""
    chain = _chain(seat.private)
    view = seat.view
    if not chain or "message" not in chain[0] or view is None or view.over or seal_due(seat) is not None:
        return None
    i = seat.seat
    hand_context = view.ledger.hand_contexts[i]
    if hand_context is None or chain[0].get("context") != str(sealed_context(hand_context)) \
            or view.rules.s.phase != Phase.TURN:
        return None
    return [dict(m["message"]) for m in chain]


def check_seal(view: Any, seat: int, seal: Any) -> list[SealedMove]:
    """(The referee's side, on receipt.) The actions of ``seat``'s chain of sealed moves (a
    list of seals; one seal alone is a chain of one), if the first is for the hand the seat
    holds now and each next one for the hand the one before leaves (its context, its
    signature, both proofs verified at once); raises a :class:`~zkbluff.errors.ZkbluffError`
    otherwise (the seat then falls back to the timeout)."""
    chain = seal if isinstance(seal, list) else [seal]
    if not 1 <= len(chain) <= CHAIN:
        raise MalformedInput(f"seal: a chain of 1 to {CHAIN} sealed moves, got {len(chain)}")
    i = seat
    hand, made_by, size = view.ledger.hands[i], view.ledger.hand_contexts[i], view.rules.s.hand_sizes[i]
    actions = []
    for k, one in enumerate(chain):
        if size - k < 1:
            raise IllegalMove(f"seal: seat {i} holds {size} card(s); its chain has {len(chain)} sealed moves")
        try:
            action = _check_seal(view, seat, one, hand, made_by, size - k)
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, MalformedInput):
                raise
            raise MalformedInput(f"seal: malformed ({type(exc).__name__}: {exc})") from None
        actions.append(action)
        hand, made_by = action.hand_commitment, action.context
    return actions


def _check_seal(view: Any, seat: int, seal: Any, hand: Any, made_by: Any, size: int) -> SealedMove:
    if not isinstance(seal, dict) or seal.get("kind") != SealedMove.kind or not isinstance(seal.get("proofs"), list) \
            or set(seal) != {"kind", "data", "proofs"}:
        raise MalformedInput("seal: expected {kind: sealed_move, data, proofs}")
    action = SealedMove.from_data(seal.get("data"))
    if action.seat != seat:
        raise IllegalMove(f"seal: seat {seat} may leave only its own sealed move, not seat {action.seat!r}'s")
    from zkbluff.protocol.envelope import check_envelope

    check_seal_signature(view.match_id, view.seat_keys[seat], action)
    demands = view.spec.seal_demands(view.ledger, view.rules, action, hand=hand, made_by=made_by, size=size)
    if len(seal["proofs"]) != len(demands):
        raise MalformedInput(f"seal: {len(demands)} proofs expected, got {len(seal['proofs'])}")
    for demand, env in zip(demands, seal["proofs"]):
        check_envelope(env, statement=demand.statement, vk=view.vks[demand.statement],
                       names=get_statement(demand.statement).public, pinned=demand.pinned, match_id=view.match_id,
                       line=0, prev="", signer=seat, verify_now=True)
    return action


def opened_by(private: Mapping[str, Any], action: SealedMove) -> dict[str, Any]:
    """(The seat's side.) Its secrets once the referee played its seal ``action`` (the first
    of its chain): the hand without the sealed card, the new salts, the card as its last
    play; the rest of the chain stays for its next turns."""
    chain = _chain(private)
    made = chain[0] if chain else None
    if not made or made.get("context") != str(action.context) \
            or commit(made["card"], made["playSalt"]) != action.play_commitment:
        from zkbluff.errors import CommitmentMismatch
        raise CommitmentMismatch(f"seat {action.seat}: the sealed move played is not the one this seat sealed")
    card = made["card"]
    return {**private, "hand": private["hand"] & ~card, "handSalt": made["handSalt"], "play": card,
            "playSalt": made["playSalt"], "played": list(private["played"]) + [card.bit_length() - 1], "seal": None,
            "seals": chain[1:]}
