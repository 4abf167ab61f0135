"""Timings of the oblivious deal (docs/oblivious-deal.md), printed as markdown.

    python benchmarks/oblivious.py [runs]

Everything on the mcl backend unless a row says otherwise: each statement's setup, witness
and prove, verify; the verifier's cost with the 52 commitments as public inputs against a
variant that takes one in-circuit digest of them; the OT alone; whole deals (7+7, and 2+2
with a 5-card board), step by step, and the online part when the dealer has prepared its
permutation proof beforehand. Minimum and median of ``runs`` runs after a warm-up. Deals
also report the process's CPU time (both threads), which bounds the wall time an
unloaded machine would show when other work shares the cores.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Callable

from zkbluff.circuit.builder import build
from zkbluff.curve import get_backend
from zkbluff.gadgets import native
from zkbluff.gadgets.permutation import enforce_permutation_of_range, permutation_challenge
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.groth16 import prove, setup, verify
from zkbluff.protocol.oblivious_deal import DealShape, ObliviousChooser, ObliviousDealer, run_deal, verify_deal
from zkbluff.protocol.ot import OTReceiver, OTSender
from zkbluff.statements import get_statement
from zkbluff.statements.base import bind_context
from zkbluff.statements.oblivious import chosen_hand_inputs, permutation_inputs

MCL = get_backend("mcl")
PYECC = get_backend("pyecc")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3


def timed(fn: Callable[[], object], runs: int = RUNS) -> tuple[float, float, object]:
    fn()  # warm-up
    ts, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return min(ts), statistics.median(ts), out


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x >= 0.01 else f"{x * 1000:.1f} ms"


def deck(seed: int = 1):
    import random

    rng = random.Random(seed)
    cards = list(range(52))
    rng.shuffle(cards)
    salts = [rng.getrandbits(250) for _ in cards]
    return cards, salts, [native.commit(c, s) for c, s in zip(cards, salts)]


def digest_variant(cs, inp):
    """The permutation statement with one public digest of the commitments (a chain of
    16-input Poseidons recomputed in-circuit) instead of the 52 commitments."""
    digest = cs.public("digest", None if inp is None else inp["digest"])
    context = cs.public("context", None if inp is None else inp["context"])
    bind_context(cs, context)
    cards = [cs.private_unchecked(f"card{j}", None if inp is None else inp[f"card{j}"]) for j in range(52)]
    salts = [cs.private_unchecked(f"salt{j}", None if inp is None else inp[f"salt{j}"]) for j in range(52)]
    coms = [commit(cs, c, s, f"position{j}/commit") for j, (c, s) in enumerate(zip(cards, salts))]
    acc = poseidon(cs, coms[:16], "digest_0")
    for k, start in enumerate(range(16, 52, 15), start=1):
        acc = poseidon(cs, [acc, *coms[start:start + 15]], f"digest_{k}")
    cs.enforce_equal(acc, digest, "digest")
    enforce_permutation_of_range(cs, cards, permutation_challenge(cs, cards, 6), "permutation")


def native_digest(coms):
    acc = native.poseidon(coms[:16])
    for start in range(16, 52, 15):
        acc = native.poseidon([acc, *coms[start:start + 15]])
    return acc


def main() -> None:
    cards, salts, coms = deck()
    keys = {}
    print(f"# Oblivious deal timings ({RUNS} runs, min / median)\n")
    print("| statement | constraints | public inputs | setup | witness | prove (with witness) | verify (mcl) "
          "| verify (pyecc) |")
    print("|---|---|---|---|---|---|---|---|")
    mine = [3, 17, 22, 40, 41, 8, 50]
    dealers = [0, 1, 2, 30, 31, 32, 33]
    cases = [("card.permutation.v1@deck=52", lambda: permutation_inputs(cards, salts, 9))]
    for k in (7, 5, 2):
        cases.append((f"card.chosen_hand.v1@deck=52,hand={k}", lambda k=k: chosen_hand_inputs(
            coms, [(q, cards[q], salts[q]) for q in mine[:k]], 5, sum(1 << q for q in dealers), 0, 6)))
    for key_id, inputs in cases:
        stmt = get_statement(key_id)
        system, witness = stmt.build(inputs())
        t = time.perf_counter()
        pk = setup(system, backend=MCL)
        t_setup = time.perf_counter() - t
        keys[key_id] = pk
        w_min, w_med, _ = timed(lambda: stmt.build(inputs()))
        p_min, p_med, proof = timed(lambda: prove(pk, stmt.build(inputs())[1], backend=MCL))
        public = witness[1:1 + system.n_public]
        v_min, v_med, _ = timed(lambda: verify(pk.vk, public, proof, backend=MCL), 20)
        vp_min, _, _ = timed(lambda: verify(pk.vk, public, proof, backend=PYECC), 1)
        print(f"| `{key_id}` | {system.n_constraints} | {system.n_public} | {t_setup:.2f} s | "
              f"{ms(w_min)} / {ms(w_med)} | {ms(p_min)} / {ms(p_med)} | {ms(v_min)} / {ms(v_med)} | {ms(vp_min)} |")

    dinp = {**permutation_inputs(cards, salts, 9), "digest": native_digest(coms)}
    system, witness = build(digest_variant, dinp)
    pk = setup(system, backend=MCL)
    w_min, _, _ = timed(lambda: build(digest_variant, dinp))
    p_min, _, proof = timed(lambda: prove(pk, build(digest_variant, dinp)[1], backend=MCL))
    v_min, v_med, _ = timed(lambda: verify(pk.vk, witness[1:3], proof, backend=MCL), 20)
    vp_min, _, _ = timed(lambda: verify(pk.vk, witness[1:3], proof, backend=PYECC), 1)
    nd_min, _, _ = timed(lambda: native_digest(coms), 5)
    print(f"| digest variant (not registered) | {system.n_constraints} | {system.n_public} | – | {ms(w_min)} | "
          f"{ms(p_min)} | {ms(v_min)} / {ms(v_med)} (+ {ms(nd_min)} to recompute the digest natively) "
          f"| {ms(vp_min)} |")

    print("\n| OT: 7 transfers, 1-out-of-52, 33-byte payloads | time |\n|---|---|")
    for be in (MCL, PYECC):
        def ot():
            S = OTSender("bench", 52, 7, 33, be)
            R = OTReceiver("bench", 52, mine, 33, be)
            return R.receive(S.respond(R.request(S.setup()), [bytes(33)] * 52))
        t_min, t_med, _ = timed(ot)
        print(f"| {be.name} | {ms(t_min)} / {ms(t_med)} |")

    def key_source(key_id):
        return keys[key_id]

    print("\n| whole deal (mcl, messages through JSON) | dealer: commit | chooser: choose | dealer: transfer "
          "| chooser: finish | dealer: accept | total (wall) | total (CPU) | online (permutation prepared; wall, CPU) "
          "| verify_deal |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for shape in (DealShape(7, 7), DealShape(2, 2, board=5)):
        steps: list[list[float]] = []
        online, checks, cpu, online_cpu = [], [], [], []
        for _ in range(RUNS + 1):
            d = ObliviousDealer("bench", 0, shape, key_source, MCL)
            c = ObliviousChooser("bench", 0, shape, key_source, MCL)
            wire = lambda m: json.loads(json.dumps(m))  # noqa: E731
            c0 = time.process_time()
            ts = [time.perf_counter()]
            m1 = wire(d.commit()); ts.append(time.perf_counter())
            m2 = wire(c.choose(m1)); ts.append(time.perf_counter())
            m3 = wire(d.transfer(m2)); ts.append(time.perf_counter())
            m4 = wire(c.finish(m3)); ts.append(time.perf_counter())
            d.accept(m4); ts.append(time.perf_counter())
            cpu.append(time.process_time() - c0)
            steps.append([b - a for a, b in zip(ts, ts[1:])])
            d2 = ObliviousDealer("bench", 1, shape, key_source, MCL)
            c2 = ObliviousChooser("bench", 1, shape, key_source, MCL)
            d2.prepare()
            t, c0 = time.perf_counter(), time.process_time()
            record = run_deal(d2, c2)
            online.append(time.perf_counter() - t)
            online_cpu.append(time.process_time() - c0)
            t = time.perf_counter()
            verify_deal(record, key_source, MCL)
            checks.append(time.perf_counter() - t)
        steps, online, checks, cpu, online_cpu = steps[1:], online[1:], checks[1:], cpu[1:], online_cpu[1:]
        totals = [sum(s) for s in steps]
        cols = [ms(statistics.median(s[i] for s in steps)) for i in range(5)]
        print(f"| {shape.dealer_hand}+{shape.chooser_hand}, board {shape.board} | " + " | ".join(cols)
              + f" | {ms(min(totals))} / {ms(statistics.median(totals))} | {ms(min(cpu))} / "
                f"{ms(statistics.median(cpu))} | {ms(min(online))}, {ms(min(online_cpu))} | {ms(min(checks))} |")


if __name__ == "__main__":
    main()
