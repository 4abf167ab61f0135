"""Statements over a Bluffers seat's committed seed: the revolver share
(``revolver.share.v1``) and the timeout's random card (``card.pick.v1``, at the end).

The Bluffers revolver, proven so that nobody — not the dealer, not the player, not the
other players — can know or steer where the bullet is before it fires.

Why not ``value.chamber.v1``
----------------------------
``value.chamber.v1`` proves "the committed chamber equals the public pull number" against
``Poseidon(chamber, salt)``. Whoever makes that commitment knows the chamber, and nothing
ties it to the seats' entropy: the party holding it could have chosen it. It discloses
the right bit, but it does not give the property the game needs.

The scheme (``revolver.share.v1``)
----------------------------------
1. Before the first deal every seat ``j`` draws a secret ``seed_j`` and publishes
   ``C_j = Poseidon(seed_j, salt_j)`` (the ``commit_seed`` action). The seed never leaves
   the seat; nobody holds anyone else's seed, the dealer included.
2. When revolver ``s`` is pulled for the ``k``-th time (k = 0..5, public: the chamber
   index), every standing seat ``j`` publishes its share
   ``u_j = Poseidon(seed_j, s, k)`` with a proof of this statement against ``C_j``.
3. The pull fires iff ``sum_j (u_j mod m) ≡ 0 (mod m)`` with ``m = 6 - k`` chambers left
   (:func:`zkbluff.games.bluffers.rules.pull_fires`, computed by the public rules).

So the bullet's chamber is fixed by the commitments made at the start (it is the first
``k`` whose sum is 0 mod ``6 - k``), and it is uniform over the six chambers as long as one
seed is secret and random: each pull fires with probability exactly 1/6, 1/5, 1/4, ...
given that it has not fired (up to ``m / r`` < 2^-250). Because every standing seat's seed
enters every revolver, knowing a bullet needs *every* standing seat's seed: the owner of
the revolver does not know it, the dealer does not, and the other players would all have
to collude with each other *and* with the owner. Steering is impossible because a share
is a deterministic function of a commitment made before any share was seen (Poseidon is
hiding and binding; a copied commitment cannot be opened): every share is committed
before any share is opened. A seat can only withhold its share. Each share is a fresh
pseudorandom value for one (revolver, pull) slot: it discloses nothing about any other
slot, chamber or hand.

A share withheld: restart without the aborter
---------------------------------------------
The contributors of a pull (the seats standing when it starts, puller first) are fixed
before any share is given, and the ``i``-th sees ``i`` shares before its own: the last can
compute the outcome exactly. If a contributor other than the puller withholds, it forfeits
(out, no points) and the pull is **re-run** among the remaining contributors, puller first,
on the shares of a slot nobody has opened: the withholder's own revolver ``w`` at its
chamber ``c_w`` (``share_slot`` in :mod:`zkbluff.games.bluffers.rules`,
``TableRules._forfeit``). The statement is unchanged — ``revolver`` and ``pull`` name the
slot, the fire rule still uses the puller's chamber — and the slot is fresh: revolver ``w``
is out, so it is never pulled again (no pull ever opens ``(w, c_w)``), and ``w`` was
standing, so ``c_w`` is 0..5 (the sixth pull always fires); each withholder is out after
one withholding, so no two re-runs share a slot. The shares given for the aborted attempt
are void.

What a withholder (or the coalition it serves) can still do, exactly: it cannot choose the
outcome (it knows its own share of ``(w, c_w)`` but it is not a contributor of the re-run,
and it knows no other seat's share of that slot), and it cannot gain (it is out with no
points). It can only trade an outcome it knows for a fresh fair draw, at the price of its
whole match. A colluder that withholds exactly when the pull would click (or exactly when
it would fire) moves the puller's risk at ``m = 6 - chamber`` chambers left from ``1/m``
to ``1 - (1 - 1/m)^2 = (2m - 1)/m^2`` (11/36 at the first chamber), or, withholding
exactly when it would fire, lowers it to ``1/m^2``; ``k`` colluders each sacrificing their match in the same pull reach
at most ``1 - (1 - 1/m)^(k+1)`` (at 4 seats ``k`` <= 2: the puller and one other must stay
to re-run). Before the re-run, a withheld share fired the pull (risk 1 for a puller any
colluder wished out) and before that the round was void (a known bang cancelled). The
puller withholding its own share — the first of every attempt, before any other is seen —
is only out with no points; the round is void. If only the puller is left it wins.

Who holds the bullet's opening: nobody. There is no single opening; the bullet position
exists only as a function of all standing seats' seeds, and is learnt chamber by chamber
as the shares come in. Reveal after a knock-out: nothing beyond the bang itself (the bang
*is* the bullet's chamber); seeds are never revealed, so the winner's revolver stays
undetermined — a revolver that was never fired has no position anyone could learn.

Cost: two Poseidon hashes (the opening, 240 constraints; the share, 261) and range checks
on the public chamber index and revolver number. See docs/bluffers.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from zkbluff.circuit.builder import LC, ConstraintSystem
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import bool_and, enforce_range, from_bits, is_equal, less_than, popcount, to_bits
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.statements.base import Statement, alloc_mask, bind_context, value

#: revolvers are numbered by seat, 0..3 (Bluffers seats at most 4)
REVOLVER_BITS = 2


def share_native(seed: int, revolver: int, pull: int) -> int:
    """The share of a seat with ``seed`` in pull ``pull`` of revolver ``revolver``."""
    return nat.poseidon([seed, revolver, pull])


def seed_commitment(seed: int, salt: int) -> int:
    return nat.commit(seed, salt)


def share_statement(chambers: int = 6) -> Statement:
    """``revolver.share.v1``: ``share`` is exactly ``Poseidon(seed, revolver, pull)`` for
    the seed that ``seed_commitment = Poseidon(seed, salt)`` commits, with ``pull`` (the
    public chamber index) in ``0..chambers-1`` and ``revolver`` in ``0..3``. Public:
    seed_commitment, revolver, pull, share, context. Private: seed, salt. Discloses the
    share, a pseudorandom value of this one pull. 518 constraints: the opening (240), the
    share (261), the ranges of revolver and pull (3 + 4), the pull's bound (6 + 1), two
    equalities (opening, share) and the context (1)."""
    bits = max(1, (chambers - 1).bit_length())

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        com = cs.public("seed_commitment", value(inp, "seed_commitment"))
        revolver = cs.public("revolver", value(inp, "revolver"))
        pull = cs.public("pull", value(inp, "pull"))
        share = cs.public("share", value(inp, "share"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        seed = cs.private_unchecked("seed", value(inp, "seed"))
        salt = cs.private_unchecked("salt", value(inp, "salt"))
        enforce_range(cs, revolver, REVOLVER_BITS, "revolver_range")
        enforce_range(cs, pull, bits, "pull_range")
        cs.enforce_equal(less_than(cs, pull, chambers, bits + 1, "pull_below_chambers"), 1, "pull_max")
        cs.enforce_equal(commit(cs, seed, salt, "seed_commit"), com, "seed_opens")
        cs.enforce_equal(poseidon(cs, [seed, revolver, pull], "share_hash"), share, "share_is_derived")

    def native(inp: dict, prm: dict) -> dict:
        out = {"seed_commitment": seed_commitment(inp["seed"], inp["salt"]), "context": inp.get("context", 0)}
        if "revolver" in inp and "pull" in inp:
            out["share"] = share_native(inp["seed"], inp["revolver"], inp["pull"])
        return out

    return Statement("revolver.share.v1", (("chambers", chambers),),
                     ("seed_commitment", "revolver", "pull", "share", "context"), ("seed", "salt"),
                     synth, native, share_statement.__doc__ or "")


@dataclass(frozen=True)
class RevolverSeed:
    """A seat's secret revolver seed and its salt (kept by the seat, never sent)."""
    seed: int
    salt: int

    @property
    def commitment(self) -> int:
        return seed_commitment(self.seed, self.salt)

    def share(self, revolver: int, pull: int) -> int:
        return share_native(self.seed, revolver, pull)

    def inputs(self, revolver: int, pull: int, context: int) -> dict:
        """The statement inputs for this seat's share of pull ``pull`` of ``revolver``."""
        return {"seed": self.seed, "salt": self.salt, "revolver": revolver, "pull": pull, "context": context}


def share_publics(seed_commitment: int, revolver: int, pull: int, share: int, context: int) -> list[int]:
    """The public inputs of ``revolver.share.v1`` in statement order, as a verifier builds
    them from the public state (the commitment from the seat's ``commit_seed``, the
    revolver and chamber index from the rules, the share from the ``share`` action)."""
    return [seed_commitment, revolver, pull, share, context]


# ---------------------------------------------------------------- the timeout's random card

#: the second Poseidon input of a pick (revolver numbers are 0..3, so a pick hash never
#: equals a share hash of the same seed)
PICK_TAG = int.from_bytes(b"bluffers/timeout-pick", "big")
PICK_BITS = 64  # the pick reduces the low 64 bits of the hash: bias below hand_size / 2^64


def pick_index_native(seed: int, context: int, hand_size: int) -> int:
    """Which of the hand's cards (in id order, 0-based) a timeout plays."""
    if hand_size < 1:
        raise ValueError("a timeout pick needs a card in hand")
    return (nat.poseidon([seed, PICK_TAG, context]) & ((1 << PICK_BITS) - 1)) % hand_size


def picked_card_native(hand: int, seed: int, context: int) -> int:
    """The card id a timeout plays from the hand mask ``hand``."""
    cards = [c for c in range(hand.bit_length()) if hand >> c & 1]
    return cards[pick_index_native(seed, context, len(cards))]


def pick_statement(deck: int = 20, max_hand: int = 5) -> Statement:
    """``card.pick.v1``: the committed one-card play is the card the seat's own committed
    seed picks from its committed hand for this turn: with ``h = Poseidon(seed, PICK_TAG,
    context)`` read strictly as bits, ``i = (h mod 2^64) mod hand_size``, and the play is the
    hand's ``i``-th card in id order. Public: hand_commitment (before the play),
    play_commitment, seed_commitment, hand_size (1..max_hand, the public count), context.
    Private: hand, hand_salt, play_salt, seed, seed_salt. Discloses nothing; the dealer
    cannot choose the card (it does not know the seed), and the seat cannot either once
    the context is fixed. Used with ``card.play.v1`` (count 1) on the same commitments,
    which proves the new hand."""
    size_bits = max(1, max_hand.bit_length())

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        hand_c = cs.public("hand_commitment", value(inp, "hand_commitment"))
        play_c = cs.public("play_commitment", value(inp, "play_commitment"))
        seed_c = cs.public("seed_commitment", value(inp, "seed_commitment"))
        size = cs.public("hand_size", value(inp, "hand_size"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        hand = alloc_mask(cs, inp, "hand", deck)
        hand_salt = cs.private_unchecked("hand_salt", value(inp, "hand_salt"))
        play_salt = cs.private_unchecked("play_salt", value(inp, "play_salt"))
        seed = cs.private_unchecked("seed", value(inp, "seed"))
        seed_salt = cs.private_unchecked("seed_salt", value(inp, "seed_salt"))
        cs.enforce_equal(popcount(hand), size, "hand_size")
        enforce_range(cs, size, size_bits, "hand_size_range")
        cs.enforce_equal(less_than(cs, size, max_hand + 1, size_bits + 1, "hand_size_below"), 1, "hand_size_max")
        cs.enforce_equal(commit(cs, from_bits(hand), hand_salt, "hand_commit"), hand_c, "hand_opens")
        cs.enforce_equal(commit(cs, seed, seed_salt, "seed_commit"), seed_c, "seed_opens")
        h = poseidon(cs, [seed, PICK_TAG, context], "pick_hash")
        low = from_bits(to_bits(cs, h, 254, "pick_bits")[:PICK_BITS])  # strict: no alias h + r
        # low = q * size + index with index < size: no wrap-around (q < 2^64, size < 8)
        q = cs.private_unchecked("quotient", (lambda: low.value // size.value) if cs.with_values else None)
        index = cs.private_unchecked("index", (lambda: low.value % size.value) if cs.with_values else None)
        if cs.records_hints:
            cs.hint(q, "{low} \\ {size}", low=low, size=size)
            cs.hint(index, "{low} % {size}", low=low, size=size)
        enforce_range(cs, q, PICK_BITS, "quotient_range")
        enforce_range(cs, index, size_bits, "index_range")
        cs.enforce_equal(less_than(cs, index, size, size_bits + 1, "index_below_size"), 1, "index_max")
        cs.enforce_equal(cs.mul(q, size, "q_times_size") + index, low, "division")
        picked, before = [], LC.constant(0)
        for c in range(deck):  # the card whose rank among the hand's cards is ``index``
            picked.append(bool_and(cs, hand[c], is_equal(cs, before, index, f"rank_{c}"), f"picked_{c}"))
            before = before + hand[c]
        cs.enforce_equal(commit(cs, from_bits(picked), play_salt, "play_commit"), play_c, "play_opens")

    def native(inp: dict, prm: dict) -> dict:
        hand, ctx = inp["hand"], inp.get("context", 0)
        size = bin(hand).count("1")
        out = {"hand_commitment": nat.commit(hand, inp["hand_salt"]), "seed_commitment":
               seed_commitment(inp["seed"], inp["seed_salt"]), "hand_size": size, "context": ctx}
        if size:
            out["play_commitment"] = nat.commit(1 << picked_card_native(hand, inp["seed"], ctx), inp["play_salt"])
        return out

    return Statement("card.pick.v1", (("deck", deck), ("max_hand", max_hand)),
                     ("hand_commitment", "play_commitment", "seed_commitment", "hand_size", "context"),
                     ("hand", "hand_salt", "play_salt", "seed", "seed_salt"), synth, native,
                     pick_statement.__doc__ or "")
