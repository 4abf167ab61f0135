"""``dice.deal.v1``: dice rolled inside the proof from the parties' committed entropies — the
dice twin of ``card.deal.v2`` (:mod:`zkbluff.statements.deal`), with the same public layout, so
the engine's proven deal (:class:`~zkbluff.games.engine.deal_statement.DiceDeal`) deals it as it
deals cards.

Derivation (the native twin :func:`dice_native` and the circuit compute the same thing):

1. ``seed = Poseidon(e_0, ..., e_{E-1})`` over the entropy contributors (contributor 0 is the
   dealer), each ``e_i`` opening its public commitment ``Poseidon(e_i, salt_i)``.
2. The dice, cup 0's first, then cup 1's, ...: die ``d`` is a base-``faces`` digit (0-based
   faces: a die shows ``digit + 1``) of ``h_g mod faces^n_g``, ``h_g = Poseidon(seed, round, g)``,
   where chunk ``g`` groups ``n_g`` consecutive dice with ``faces^n_g < 2^160`` (as
   ``card.deal.v2`` chunks its draws): exactly uniform and independent (the prover refuses
   ``h_g >= floor((r-1)/N) N``, ``N = faces^n_g``: probability below ``2^-93``). Cups may
   differ in size (a seat that lost dice rolls fewer).
3. Each share's public commitment is ``Poseidon(packed, salt)``, ``packed = sum_j d_j faces^j``
   with its seat's salt. No die is public.

Not in the registry's shared catalog (no game uses it yet): it is the engine's proof that a
deal is not only cards (``tests/games/engine/test_deal_statement.py``); a dice game that uses it
registers its parameter sets in its own folder.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.order import mixed_radix_digits
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.statements.base import CONTEXT, Input, Inputs, Statement, bind_context, commitment, salt, value

NAME = "dice.deal.v1"
#: a chunk of dice shares one Poseidon output while faces^n stays below 2^CHUNK_BITS
CHUNK_BITS = 160
MAX_ENTROPIES = 16


def dice_inputs(shares: int, entropies: int) -> Inputs:
    """The declaration: public every contributor's entropy commitment, every share's
    commitment, the round and the context (the order of ``card.deal.v2`` without a board);
    private the entropies with their salts and the share salts."""
    return Inputs(
        public=(*(commitment(f"entropy{i}_commitment") for i in range(entropies)),
                *(commitment(f"share{k}_commitment") for k in range(shares)), Input("round"), CONTEXT),
        private=(*(x for i in range(entropies) for x in (Input(f"entropy{i}"), salt(f"entropy{i}_salt"))),
                 *(salt(f"share{k}_salt") for k in range(shares))))


def pack(dice: Sequence[int], faces: int) -> int:
    """The cup as one number: ``sum_j d_j faces^j`` (0-based faces)."""
    return sum(d * faces ** j for j, d in enumerate(dice))


def unpack(packed: int, dice: int, faces: int) -> tuple[int, ...]:
    """The cup's dice (0-based faces) of a packed share."""
    return tuple((packed // faces ** j) % faces for j in range(dice))


def chunks(n_dice: int, faces: int) -> list[int]:
    """How many dice each Poseidon output rolls: as many as keep ``faces^n < 2^CHUNK_BITS``."""
    per = 1
    while faces ** (per + 1) < 1 << CHUNK_BITS:
        per += 1
    return [min(per, n_dice - at) for at in range(0, n_dice, per)]


def cut(dice: Sequence[Any], cups: Sequence[int]) -> list[list[Any]]:
    """The dice in cup order cut into the cups."""
    out, at = [], 0
    for n in cups:
        out.append(list(dice[at:at + n]))
        at += n
    return out


def dice_native(entropies: Sequence[int], round_no: int, cups: Sequence[int], faces: int) -> list[int]:
    """The native twin: each cup's packed dice (``cups[k]`` dice in cup ``k``) rolled from the
    entropies (in contributor order) in round ``round_no``, exactly as ``dice.deal.v1`` proves
    it. Raises :class:`UnsatisfiedConstraint` in the refused case."""
    seed = nat.poseidon(list(entropies))
    dice: list[int] = []
    for g, n in enumerate(chunks(sum(cups), faces)):
        h = nat.poseidon([seed, round_no % r, g])
        try:
            dice.extend(nat.mixed_radix_digits(h, [faces] * n))
        except ValueError as exc:
            raise UnsatisfiedConstraint(f"dice: chunk {g} of this seed cannot be proven ({exc})") from None
    return [pack(cup, faces) for cup in cut(dice, cups)]


def dice_deal_statement(faces: int, cups: Sequence[int], entropies: int = 2) -> Statement:
    """``dice.deal.v1``: cup ``k`` of ``cups[k]`` dice with ``faces`` faces is the seed's roll
    for this round (see the module). Public: every contributor's entropy
    commitment, every share's commitment, the round, the context. Private: the entropies with
    their salts, the share salts. The dealer learns the dice; it cannot choose them."""
    cups = tuple(cups)
    shares = len(cups)
    if not 1 <= shares <= 6 or any(not 1 <= dice <= 16 for dice in cups) or not 2 <= faces <= 16:
        raise ValueError(f"dice: cups of {list(cups)} dice of {faces} faces (1..6 cups, 1..16 dice each, 2..16 faces)")
    if not 1 <= entropies <= MAX_ENTROPIES:
        raise ValueError(f"dice: 1..{MAX_ENTROPIES} entropy contributors, got {entropies}")
    declared = dice_inputs(shares, entropies)

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        e_commits = [cs.public(f"entropy{i}_commitment", value(inp, f"entropy{i}_commitment")) for i in range(entropies)]
        s_commits = [cs.public(f"share{k}_commitment", value(inp, f"share{k}_commitment")) for k in range(shares)]
        round_no = cs.public("round", value(inp, "round"))
        bind_context(cs, cs.public("context", value(inp, "context")))
        ents = []
        for i in range(entropies):
            e = cs.private_unchecked(f"entropy{i}", value(inp, f"entropy{i}"))
            s = cs.private_unchecked(f"entropy{i}_salt", value(inp, f"entropy{i}_salt"))
            cs.enforce_equal(commit(cs, e, s, f"entropy{i}/commit"), e_commits[i], f"entropy{i}/opens")
            ents.append(e)
        seed = poseidon(cs, ents, "seed")
        dice: list[LC] = []
        for g, n in enumerate(chunks(sum(cups), faces)):
            h = poseidon(cs, [seed, round_no, g], f"stream_{g}")
            dice.extend(mixed_radix_digits(cs, h, [faces] * n, f"stream_{g}/dice"))
        for k, cup in enumerate(cut(dice, cups)):
            packed = LC.constant(0)
            for j, d in enumerate(cup):
                packed = packed + d * faces ** j
            s = cs.private_unchecked(f"share{k}_salt", value(inp, f"share{k}_salt"))
            cs.enforce_equal(commit(cs, packed, s, f"share{k}/commit"), s_commits[k], f"share{k}/opens")

    def native(inp: dict, prm: dict) -> dict:
        ents = [inp[f"entropy{i}"] for i in range(entropies)]
        round_no = inp.get("round", 0)
        rolled = dice_native(ents, round_no, cups, faces)
        out = {f"entropy{i}_commitment": nat.commit(ents[i], inp[f"entropy{i}_salt"]) for i in range(entropies)}
        out.update({f"share{k}_commitment": nat.commit(rolled[k], inp[f"share{k}_salt"]) for k in range(shares)})
        out.update({"round": round_no, "context": inp.get("context", 0)})
        return out

    def sample(rng: Any) -> dict:
        """Valid random inputs: every private input a random element, a random round and context."""
        return {"round": rng.randrange(1 << 16), "context": rng.randrange(r),
                **{name: rng.randrange(1, r) for name in declared.private_names}}

    return Statement.declare(NAME, (("faces", faces), ("cups", cups), ("entropies", entropies)),
                             declared, synth, native, dice_deal_statement.__doc__ or "", sample=sample)
