"""The Bluffers revolver, proven so that nobody — not the dealer, not the player, not the
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
hiding and binding; a copied commitment cannot be opened). A seat can only withhold its
share, which stops the match but cannot change the outcome: shares are never replaced,
and the set of contributors (the seats standing when the pull starts, puller first) is
fixed before any share is given. Each share is a fresh pseudorandom value for one
(revolver, pull): it discloses nothing about any other pull, chamber or hand.

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

from zkbluff.circuit.builder import ConstraintSystem
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import enforce_range, less_than
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.statements.base import Statement, bind_context, value

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
