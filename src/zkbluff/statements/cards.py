"""Card statements: deal, play (ownership), claim (truth), absorb, match (5 Up 2 Down).

Cards are ids ``0..deck-1``; a hand is a bit mask over the deck committed as
``Poseidon(mask, salt)``. Every statement takes a public ``context`` (match, turn and
previous transcript hash) and constrains it.
"""
from __future__ import annotations

from typing import Optional, Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import alloc_boolean, enforce_range, is_zero, less_than, popcount, select
from zkbluff.gadgets.poseidon import commit
from zkbluff.gadgets.sets import (
    count_outside, difference_of_subset, enforce_disjoint, enforce_subset, union_disjoint,
)
from zkbluff.statements.base import (
    Statement, alloc_mask, bind_context, public_mask_bits, value,
)


def popcount_native(mask: int) -> int:
    return bin(mask).count("1")


# ---------------------------------------------------------------- deal

def deal_statement(deck: int, hands: Sequence[int], board: int = 0) -> Statement:
    """``card.deal.v1``: hands of the given sizes and a public board of ``board`` cards are
    pairwise disjoint subsets of the deck. Public: each hand's commitment, the board mask,
    the context. Private: each hand's mask and salt."""
    k = len(hands)
    if not 1 <= k <= 6 or sum(hands) + board > deck:
        raise ValueError(f"deal: {k} hands of {list(hands)} and a board of {board} do not fit a deck of {deck}")
    pub = tuple(f"hand{i}_commitment" for i in range(k)) + ("board", "context")
    prv = tuple(x for i in range(k) for x in (f"hand{i}", f"hand{i}_salt"))

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        commits = [cs.public(f"hand{i}_commitment", value(inp, f"hand{i}_commitment")) for i in range(k)]
        board_mask = cs.public("board", value(inp, "board"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        board_bits = public_mask_bits(cs, board_mask, inp, "board", deck)
        cs.enforce_equal(popcount(board_bits), board, "board/size")
        total = list(board_bits)
        for i in range(k):
            bits = alloc_mask(cs, inp, f"hand{i}", deck)
            cs.enforce_equal(popcount(bits), hands[i], f"hand{i}/size")
            salt = cs.private_unchecked(f"hand{i}_salt", value(inp, f"hand{i}_salt"))
            cs.enforce_equal(commit(cs, _mask(bits), salt,
                                    f"hand{i}/commit"), commits[i], f"hand{i}/opens")
            total = [t + b for t, b in zip(total, bits)]
        with cs.namespace("disjoint"):
            for j, t in enumerate(total):  # a card is in at most one hand or the board
                cs.enforce(t, t - 1, 0, f"card_{j}")

    def native(inp: dict, prm: dict) -> dict:
        out = {f"hand{i}_commitment": nat.commit(inp[f"hand{i}"], inp[f"hand{i}_salt"]) for i in range(k)}
        out.setdefault("board", inp.get("board", 0))
        out.setdefault("context", inp.get("context", 0))
        return out

    return Statement("card.deal.v1", (("deck", deck), ("hands", tuple(hands)), ("board", board)), pub, prv,
                     synth, native, deal_statement.__doc__ or "")


# ---------------------------------------------------------------- play

def play_statement(deck: int, max_play: int) -> Statement:
    """``card.play.v1``: the played cards are a subset of the committed hand, there are
    ``count`` of them (1..max_play), and the new hand is the old minus them. Public: old and
    new hand commitments, the play commitment, count, context. Discloses nothing else."""
    pub = ("old_hand_commitment", "new_hand_commitment", "play_commitment", "count", "context")
    prv = ("old_hand", "old_salt", "play", "play_salt", "new_salt")
    count_bits = max(1, (max_play - 1).bit_length())

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        pub_ = _hand_change_publics(cs, inp, ("count",))
        count = pub_["count"]
        old = alloc_mask(cs, inp, "old_hand", deck)
        played = alloc_mask(cs, inp, "play", deck)
        enforce_subset(cs, played, old, "subset")
        new = difference_of_subset(old, played)  # boolean because played ⊆ old
        cs.enforce_equal(popcount(played), count, "count")
        with cs.namespace("count_range"):  # 1 <= count <= max_play
            enforce_range(cs, count - 1, count_bits, "low")
            cs.enforce_equal(less_than(cs, count - 1, max_play, count_bits + 1), 1, "high")
        _enforce_hand_change_opens(cs, inp, old, played, new, pub_)

    def native(inp: dict, prm: dict) -> dict:
        old, played = inp["old_hand"], inp["play"]
        return {"old_hand_commitment": nat.commit(old, inp["old_salt"]),
                "new_hand_commitment": nat.commit(old & ~played, inp["new_salt"]),
                "play_commitment": nat.commit(played, inp["play_salt"]),
                "count": popcount_native(played), "context": inp.get("context", 0)}

    return Statement("card.play.v1", (("deck", deck), ("max_play", max_play)), pub, prv, synth, native,
                     play_statement.__doc__ or "")


def _hand_change_publics(cs: ConstraintSystem, inp: Optional[dict], extra: tuple[str, ...] = ()) -> dict:
    """The public inputs of a hand change (old and new hand, the play, ``extra``, the
    context), allocated in that order; the context is bound (1 constraint)."""
    names = ("old_hand_commitment", "new_hand_commitment", "play_commitment", *extra, "context")
    pub = {n: cs.public(n, value(inp, n)) for n in names}
    bind_context(cs, pub["context"])
    return pub


def _enforce_hand_change_opens(cs: ConstraintSystem, inp: Optional[dict], old, played, new, pub: dict) -> None:
    """The three salts, then the old hand, the play and the new hand each open their public
    commitment. 3 × 240 constraints."""
    salts = [cs.private_unchecked(n, value(inp, n)) for n in ("old_salt", "play_salt", "new_salt")]
    for label, bits, salt, key in (("old", old, salts[0], "old_hand_commitment"),
                                   ("play", played, salts[1], "play_commitment"),
                                   ("new", new, salts[2], "new_hand_commitment")):
        cs.enforce_equal(commit(cs, _mask(bits), salt, f"{label}_commit"), pub[key], f"{label}_opens")


def _mask(bits: Sequence[LC]) -> LC:
    acc = LC.constant(0)
    for j, b in enumerate(bits):
        acc = acc + b * (1 << j)
    return acc


# ---------------------------------------------------------------- claim

def claim_statement(deck: int) -> Statement:
    """``card.claim.v1``: ``verdict`` is exactly "every played card lies in the public rank
    mask". Public: play commitment, rank mask, verdict, context. Discloses one bit. One
    statement for every game: the rank mask lists the card ids that count as the claimed
    rank (jokers included where a game has them)."""
    pub = ("play_commitment", "rank_mask", "verdict", "context")
    prv = ("play", "play_salt")

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        play_c = cs.public("play_commitment", value(inp, "play_commitment"))
        rank_mask = cs.public("rank_mask", value(inp, "rank_mask"))
        verdict = cs.public("verdict", value(inp, "verdict"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        mask_bits = public_mask_bits(cs, rank_mask, inp, "rank_mask", deck)
        played = alloc_mask(cs, inp, "play", deck)
        salt = cs.private_unchecked("play_salt", value(inp, "play_salt"))
        cs.enforce_equal(commit(cs, _mask(played), salt, "play_commit"), play_c, "play_opens")
        outside = count_outside(cs, played, mask_bits, "outside")
        cs.enforce_equal(is_zero(cs, outside, "all_inside"), verdict, "verdict")

    def native(inp: dict, prm: dict) -> dict:
        out = {"play_commitment": nat.commit(inp["play"], inp["play_salt"]), "context": inp.get("context", 0)}
        if "rank_mask" in inp:
            out["verdict"] = int(inp["play"] & ~inp["rank_mask"] == 0)
        return out

    return Statement("card.claim.v1", (("deck", deck),), pub, prv, synth, native, claim_statement.__doc__ or "")


# ---------------------------------------------------------------- absorb

def absorb_statement(deck: int) -> Statement:
    """``card.absorb.v1``: the new hand is the old hand plus the played cards, which were
    disjoint from it (Cheat's pile pick-up). Public: old and new hand commitments, the
    play commitment, context."""
    pub = ("old_hand_commitment", "new_hand_commitment", "play_commitment", "context")
    prv = ("old_hand", "old_salt", "play", "play_salt", "new_salt")

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        pub_ = _hand_change_publics(cs, inp)
        old = alloc_mask(cs, inp, "old_hand", deck)
        pile = alloc_mask(cs, inp, "play", deck)
        enforce_disjoint(cs, old, pile, "disjoint")
        new = union_disjoint(old, pile)
        _enforce_hand_change_opens(cs, inp, old, pile, new, pub_)

    def native(inp: dict, prm: dict) -> dict:
        return {"old_hand_commitment": nat.commit(inp["old_hand"], inp["old_salt"]),
                "new_hand_commitment": nat.commit(inp["old_hand"] | inp["play"], inp["new_salt"]),
                "play_commitment": nat.commit(inp["play"], inp["play_salt"]), "context": inp.get("context", 0)}

    return Statement("card.absorb.v1", (("deck", deck),), pub, prv, synth, native, absorb_statement.__doc__ or "")


# ---------------------------------------------------------------- match (5 Up 2 Down)

NO_RANK = 13  # a named-rank slot left empty


def lies_native(hand: int, board: int, name1: int, name2: int) -> int:
    """How many named ranks no distinct card of the hand matches (seed 000: two Kings in
    hand against one King on the board are two matches). Names are 0..12 or 13 (none)."""
    need = [0] * 13
    for nm in (name1, name2):
        if nm != NO_RANK:
            need[nm] += 1
    have = [0] * 13
    for c in range(52):
        if hand >> c & 1:
            have[c % 13] += 1
    named = sum(need)
    return named - sum(min(n, h) for n, h in zip(need, have))


def match_statement() -> Statement:
    """``card.match.v1`` (5 Up 2 Down): ``lies`` is the number of named board ranks that
    no distinct card of the committed two-card hand matches. Public: hand commitment,
    board mask, the two named ranks (0..12, or 13 for none), lies, context. Every named
    rank must be on the board. Discloses one number."""
    deck = 52
    pub = ("hand_commitment", "board", "name1", "name2", "lies", "context")
    prv = ("hand", "hand_salt")

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        hand_c = cs.public("hand_commitment", value(inp, "hand_commitment"))
        board = cs.public("board", value(inp, "board"))
        names = [cs.public("name1", value(inp, "name1")), cs.public("name2", value(inp, "name2"))]
        lies = cs.public("lies", value(inp, "lies"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        board_bits = public_mask_bits(cs, board, inp, "board", deck)
        hand = alloc_mask(cs, inp, "hand", deck)
        cs.enforce_equal(popcount(hand), 2, "hand/size")
        salt = cs.private_unchecked("hand_salt", value(inp, "hand_salt"))
        cs.enforce_equal(commit(cs, _mask(hand), salt, "hand_commit"), hand_c, "hand_opens")
        need = [LC.constant(0)] * 13
        for s, nm in enumerate(names):  # one-hot over 0..13 (13 = none)
            with cs.namespace(f"name{s + 1}"):
                onehot = [alloc_boolean(cs, f"is_{v}", None if inp is None else int(inp[f"name{s + 1}"] == v))
                          for v in range(14)]
                if cs.records_hints:
                    for v, b in enumerate(onehot):
                        cs.hint(b, "{nm} == {v} ? 1 : 0", nm=nm, v=v)
                cs.enforce_equal(popcount(onehot), 1, "one")
                cs.enforce_equal(popcount([b * v for v, b in enumerate(onehot)]), nm, "value")
                need = [n + onehot[v] for v, n in enumerate(need)]
        matched = LC.constant(0)
        for rank in range(13):
            with cs.namespace(f"rank_{rank}"):
                have = popcount([hand[rank + 13 * s] for s in range(4)])
                on_board = popcount([board_bits[rank + 13 * s] for s in range(4)])
                absent = is_zero(cs, on_board, "absent")
                cs.enforce(need[rank], absent, 0, "named_on_board")
                fewer = less_than(cs, need[rank], have, 2, "need_lt_have")  # both 0..2
                matched = matched + select(cs, fewer, need[rank], have, "min")
        cs.enforce_equal(popcount(need) - matched, lies, "lies")

    def native(inp: dict, prm: dict) -> dict:
        out = {"hand_commitment": nat.commit(inp["hand"], inp["hand_salt"]), "context": inp.get("context", 0)}
        if all(k in inp for k in ("board", "name1", "name2")) and all(0 <= inp[k] <= NO_RANK for k in ("name1", "name2")):
            out["lies"] = lies_native(inp["hand"], inp["board"], inp["name1"], inp["name2"])
        return out

    return Statement("card.match.v1", (("deck", deck),), pub, prv, synth, native, match_statement.__doc__ or "")

