"""Committed small values: Mind Bluff's eating choice, the hidden remaining count a
referee holds and game 3's hidden start drawn from every party's entropy, and the
Bluffers revolver chamber. Each commits the value as ``Poseidon(value, salt)`` and
discloses one bit per check."""
from __future__ import annotations

from typing import Optional

from zkbluff.circuit.builder import ConstraintSystem
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import enforce_range, from_bits, is_equal, less_than, select, to_bits
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.statements.base import Statement, bind_context, value
from zkbluff.statements.base import value as lazy

COUNT_BITS = 6  # remaining dango counts are below 64 (games start at 29..31)
DRAW_BASE = 29      # game 3 starts with DRAW_BASE + (draw mod 3): 29, 30 or 31
DRAW_LOW_BITS = 64  # the draw is the low 64 bits of the hash, mod 3 (bias 2^-64)


def committed_equals_statement(name: str, params: tuple, value: str, salt: str, commitment: str, target: str,
                               bit: str, enforce_value_range, doc: str) -> Statement:
    """A committed small value and one disclosed bit: ``bit`` is exactly "the value equals
    the public ``target``". Public: commitment, target, bit, context. Private: value, salt.
    Constraints: the value's range, the commitment (240), the equality (3), the context."""
    pub = (commitment, target, bit, "context")
    prv = (value, salt)

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        com = cs.public(commitment, lazy(inp, commitment))
        tgt = cs.public(target, lazy(inp, target))
        out = cs.public(bit, lazy(inp, bit))
        context = cs.public("context", lazy(inp, "context"))
        bind_context(cs, context)
        v = cs.private_unchecked(value, lazy(inp, value))
        s = cs.private_unchecked(salt, lazy(inp, salt))
        enforce_value_range(cs, v, prm)
        cs.enforce_equal(commit(cs, v, s, f"{value}_commit"), com, f"{value}_opens")
        cs.enforce_equal(is_equal(cs, v, tgt, f"is_{target}"), out, bit)

    def native(inp: dict, prm: dict) -> dict:
        out = {commitment: nat.commit(inp[value], inp[salt]), "context": inp.get("context", 0)}
        if target in inp:
            out[bit] = int(inp[value] == inp[target])
        return out

    return Statement(name, params, pub, prv, synth, native, doc)


def choice_statement() -> Statement:
    """``value.choice.v1`` (Mind Bluff): the committed choice is 1, 2 or 3, and ``verdict``
    is exactly "the choice equals the public claim" (TRUE / BLUFF). Discloses one bit."""
    return committed_equals_statement(
        "value.choice.v1", (), "choice", "choice_salt", "choice_commitment", "claim", "verdict",
        lambda cs, v, prm: enforce_one_to_three(cs, v, "choice_range"), choice_statement.__doc__ or "")


def enforce_one_to_three(cs: ConstraintSystem, x, name: str) -> None:
    """Constrain x to {1, 2, 3}: ``(x-1)(x-2) = t`` and ``t (x-3) = 0``. 2 constraints."""
    with cs.namespace(name):
        t = cs.mul(x - 1, x - 2, "t")
        cs.enforce(t, x - 3, 0, "root")


def counter_step_statement() -> Statement:
    """``value.counter_step.v1``: a referee's hidden count goes down by a committed eat of
    1..3. ``ate_last`` is exactly "the eat reaches the count" (the eater took the last
    dango and loses); then the new count is 0, else ``old - eat``. Public: old and new
    count commitments, the choice commitment, ate_last, context."""
    pub = ("old_commitment", "new_commitment", "choice_commitment", "ate_last", "context")
    prv = ("old_count", "old_salt", "choice", "choice_salt", "new_salt")

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        old_c = cs.public("old_commitment", value(inp, "old_commitment"))
        new_c = cs.public("new_commitment", value(inp, "new_commitment"))
        choice_c = cs.public("choice_commitment", value(inp, "choice_commitment"))
        ate_last = cs.public("ate_last", value(inp, "ate_last"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        old = cs.private_unchecked("old_count", value(inp, "old_count"))
        choice = cs.private_unchecked("choice", value(inp, "choice"))
        salts = [cs.private_unchecked(n, value(inp, n)) for n in ("old_salt", "choice_salt", "new_salt")]
        enforce_range(cs, old, COUNT_BITS, "old_range")
        enforce_one_to_three(cs, choice, "choice_range")
        reaches = 1 - less_than(cs, choice, old, COUNT_BITS, "choice_lt_old")
        cs.enforce_equal(reaches, ate_last, "ate_last")
        new = select(cs, reaches, 0, old - choice, "new")
        cs.enforce_equal(commit(cs, old, salts[0], "old_commit"), old_c, "old_opens")
        cs.enforce_equal(commit(cs, choice, salts[1], "choice_commit"), choice_c, "choice_opens")
        cs.enforce_equal(commit(cs, new, salts[2], "new_commit"), new_c, "new_opens")

    def native(inp: dict, prm: dict) -> dict:
        old, ch = inp["old_count"], inp["choice"]
        last = int(ch >= old)
        return {"old_commitment": nat.commit(old, inp["old_salt"]),
                "new_commitment": nat.commit(0 if last else old - ch, inp["new_salt"]),
                "choice_commitment": nat.commit(ch, inp["choice_salt"]), "ate_last": last,
                "context": inp.get("context", 0)}

    return Statement("value.counter_step.v1", (), pub, prv, synth, native, counter_step_statement.__doc__ or "")


def counter_is_statement() -> Statement:
    """``value.counter_is.v1``: ``equal`` is exactly "the committed count equals the public
    ``target``" (Mind Bluff's All done compares with 1). Discloses one bit."""
    return committed_equals_statement(
        "value.counter_is.v1", (), "count", "salt", "commitment", "target", "equal",
        lambda cs, v, prm: enforce_range(cs, v, COUNT_BITS, "count_range"), counter_is_statement.__doc__ or "")


def chamber_statement(chambers: int = 6) -> Statement:
    """``value.chamber.v1`` (Bluffers' revolver): the committed bullet chamber is
    ``0..chambers-1``, and ``fired`` is exactly "the bullet is in chamber ``pull``" (the
    chamber advances with every pull, from 0). Discloses one bit."""
    bits = max(1, (chambers - 1).bit_length())

    def chamber_range(cs: ConstraintSystem, v, prm: dict) -> None:
        enforce_range(cs, v, bits, "chamber_range")
        cs.enforce_equal(less_than(cs, v, chambers, bits + 1, "below_chambers"), 1, "chamber_max")

    return committed_equals_statement(
        "value.chamber.v1", (("chambers", chambers),), "chamber", "salt", "chamber_commitment", "pull", "fired",
        chamber_range, chamber_statement.__doc__ or "")


def start_draw_native(referee_entropy: int, seat_entropies: tuple[int, int]) -> tuple[int, int]:
    """Game 3's hidden start and public coin from the entropies: ``h = Poseidon(referee
    entropy, seat 0's, seat 1's)``; start = 29 + (low 64 bits of h) mod 3, coin = bit 64 of h."""
    h = nat.poseidon([referee_entropy, *seat_entropies])
    return DRAW_BASE + (h & ((1 << DRAW_LOW_BITS) - 1)) % 3, (h >> DRAW_LOW_BITS) & 1


def start_draw_statement() -> Statement:
    """``value.start_draw.v1`` (Mind Bluff game 3): the referee's committed start count is
    the fair draw of every party's entropy, and ``coin`` (the first player) is its public
    bit. The referee committed ``Poseidon(referee_entropy, referee_salt)`` before any seat
    revealed its entropy; the seats' entropies are public. Inside the proof:
    ``h = Poseidon(referee_entropy, entropy0, entropy1)`` decomposed strictly (no alias
    ``h + r``), ``low = 3q + m`` with m in {0,1,2} and q < 2^63 (so unique), start = 29 + m
    committed as ``start_commitment``, coin = bit 64 of h. The referee cannot choose the
    start: its entropy is fixed by its commitment, the seats' by theirs. Discloses the
    coin only; the start stays hidden until the reveal."""
    pub = ("referee_commitment", "entropy0", "entropy1", "start_commitment", "coin", "context")
    prv = ("referee_entropy", "referee_salt", "start_salt")

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        ref_c = cs.public("referee_commitment", value(inp, "referee_commitment"))
        seats = [cs.public(n, value(inp, n)) for n in ("entropy0", "entropy1")]
        start_c = cs.public("start_commitment", value(inp, "start_commitment"))
        coin = cs.public("coin", value(inp, "coin"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        ent = cs.private_unchecked("referee_entropy", value(inp, "referee_entropy"))
        ref_salt = cs.private_unchecked("referee_salt", value(inp, "referee_salt"))
        start_salt = cs.private_unchecked("start_salt", value(inp, "start_salt"))
        cs.enforce_equal(commit(cs, ent, ref_salt, "referee_commit"), ref_c, "referee_opens")
        h = poseidon(cs, [ent, *seats], "draw_hash")
        bits = to_bits(cs, h, 254, "draw_bits")
        low = from_bits(bits[:DRAW_LOW_BITS])
        hint = None if inp is None else start_draw_native(inp["referee_entropy"], (inp["entropy0"], inp["entropy1"]))
        with cs.namespace("mod3"):
            h_low = None if inp is None else nat.poseidon(
                [inp["referee_entropy"], inp["entropy0"], inp["entropy1"]]) & ((1 << DRAW_LOW_BITS) - 1)
            q = cs.private_unchecked("q", None if h_low is None else h_low // 3)
            m = cs.private_unchecked("m", None if hint is None else hint[0] - DRAW_BASE)
            if cs.records_hints:
                cs.hint(q, "{low} \\ 3", low=low)
                cs.hint(m, "{low} % 3", low=low)
            enforce_range(cs, q, DRAW_LOW_BITS - 1, "q_range")
            t = cs.mul(m, m - 1, "m_t")
            cs.enforce(t, m - 2, 0, "m_range")
            cs.enforce_equal(q * 3 + m, low, "split")
        cs.enforce_equal(commit(cs, m + DRAW_BASE, start_salt, "start_commit"), start_c, "start_opens")
        cs.enforce_equal(bits[DRAW_LOW_BITS], coin, "coin")

    def native(inp: dict, prm: dict) -> dict:
        start, coin = start_draw_native(inp["referee_entropy"], (inp["entropy0"], inp["entropy1"]))
        return {"referee_commitment": nat.commit(inp["referee_entropy"], inp["referee_salt"]),
                "start_commitment": nat.commit(start, inp["start_salt"]), "coin": coin,
                "context": inp.get("context", 0)}

    return Statement("value.start_draw.v1", (), pub, prv, synth, native, start_draw_statement.__doc__ or "")
