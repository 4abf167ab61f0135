"""Timings of the house-blind deal's hand binding (docs/house-blind-deal.md), printed as markdown.

    python benchmarks/house_blind_hand.py [runs]

On the mcl backend, under the pinned keys of ``card.hand_binding.v1`` at 17 cards (3 seats x 17
from 52, one undealt) and 26 (2 seats x 26): the binding statement's constraints; one seat's
hand message (the committed Groth16 proof, its witness included, and the sigma proof) as
process CPU time and wall time; verifying one seat's message (its pairing and its sigma proof,
one MSM) and all seats' messages of the deal; the sigma proof's size. Medians over ``runs``
after a warm-up.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Callable

from zkbluff.curve import get_backend
from zkbluff.protocol.hand_binding import hand_message, verify_hands
from zkbluff.protocol.house_blind import DealLayout, run_deal, verify_deal
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys

MCL = get_backend("mcl")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def med(xs: list[float]) -> str:
    return f"{1000 * statistics.median(xs):.1f} ms"


def main() -> None:
    print("| hand | constraints | seat's hand message: prove (CPU / wall) | of which sigma (CPU) | "
          "verify one seat (CPU / wall) | verify all seats (CPU) | sigma proof (raw / JSON) | D + Groth16 (raw) |")
    print("|---|---|---|---|---|---|---|---|")
    for hand, seats in ((17, 3), (26, 2)):
        key_id = f"card.hand_binding.v1@deck=52,hand={hand}"
        stmt, pk = get_statement(key_id), load_keys(key_id)
        n_committed = len(stmt.committed)
        seats_, record = run_deal(DealLayout.hands(seats, 52, hand=hand), "bench", backend=MCL)
        opening = verify_deal(record, MCL)
        keys = [k.h for k, _ in record.keys]
        cards = {s.seat: s.open_hand(opening.deck, record.shares, keys) for s in seats_}
        prove_w, prove_c, sig_c, one_w, one_c, all_c = [], [], [], [], [], []
        msgs: dict = {}
        for run in range(RUNS + 1):
            s = seats_[run % seats]
            tm: dict = {}
            box: dict = {}

            def go() -> None:
                box["m"] = hand_message(s.key, keys[s.seat], s.seat, record, opening.deck, cards[s.seat], 7, stmt, pk,
                                        "prev", backend=MCL, timings=tm)

            w, c = timed(go)
            msgs[s.seat] = (box["m"], "prev")
            one = {s.seat: msgs[s.seat]}
            ow, oc = timed(lambda: verify_hands(record, opening.deck, one, pk.vk, n_committed, MCL))
            if run:
                prove_w.append(w)
                prove_c.append(c)
                sig_c.append(tm["sigma_cpu"])
                one_w.append(ow)
                one_c.append(oc)
        for s in seats_:
            if s.seat not in msgs:
                msgs[s.seat] = (hand_message(s.key, keys[s.seat], s.seat, record, opening.deck, cards[s.seat], 7,
                                             stmt, pk, "prev", backend=MCL), "prev")
        for _ in range(RUNS):
            all_c.append(timed(lambda: verify_hands(record, opening.deck, msgs, pk.vk, n_committed, MCL))[1])
        sigma = msgs[0][0].sigma
        raw = 64 * (2 + len(sigma.T)) + 32 * (2 + len(sigma.z_c))
        js = len(json.dumps(sigma.to_json(), separators=(",", ":")))
        print(f"| {hand} ({seats} seats) | {stmt.system().n_constraints} | {med(prove_c)} / {med(prove_w)} | "
              f"{med(sig_c)} | {med(one_c)} / {med(one_w)} | {med(all_c)} | {raw} B / {js} B | "
              f"{64 + 64 * 2 + 128} B |")


def six_seats() -> None:
    """A 6-seat Cheat deal (9, 9, 9, 9, 8, 8 of 52): the deal and every hand message verified,
    under keys from the seeded test setup (those two sizes have no pinned key yet; a key's cost
    does not depend on who made it)."""
    from zkbluff.groth16.setup import setup_insecure_seeded_for_tests
    from zkbluff.statements.hand_binding import hand_binding_statement

    stmts = {m: hand_binding_statement(52, m) for m in (9, 8)}
    pks = {m: setup_insecure_seeded_for_tests(st.system(), f"bench {m}", MCL) for m, st in stmts.items()}
    seats_, record = run_deal(DealLayout.hands(6, 52), "bench6", backend=MCL)
    opening = verify_deal(record, MCL)
    keys = [k.h for k, _ in record.keys]
    cards = {s.seat: s.open_hand(opening.deck, record.shares, keys) for s in seats_}
    msgs = {m: {} for m in stmts}  # type: dict[int, dict]
    prove_c = []
    for s in seats_:
        m = len(cards[s.seat])
        c0 = time.process_time()
        msgs[m][s.seat] = (hand_message(s.key, keys[s.seat], s.seat, record, opening.deck, cards[s.seat], 7,
                                        stmts[m], pks[m], "prev", backend=MCL), "prev")
        prove_c.append(time.process_time() - c0)
    deal_c, hands_c, both_w = [], [], []
    for _ in range(RUNS):
        w0 = time.perf_counter()
        deal_c.append(timed(lambda: verify_deal(record, MCL))[1])
        hands_c.append(timed(lambda: [verify_hands(record, opening.deck, msgs[m], pks[m].vk, m + 1, MCL)
                                      for m in stmts])[1])
        both_w.append(time.perf_counter() - w0)
    print()
    print("| 6 seats x 52 (9, 9, 9, 9, 8, 8) | hand message per seat (CPU) | verify the deal (CPU) | "
          "verify the 6 hand messages (CPU) | both (wall) |")
    print("|---|---|---|---|---|")
    print(f"| seeded test keys | {med(prove_c)} | {med(deal_c)} | {med(hands_c)} | {med(both_w)} |")


if __name__ == "__main__":
    main()
    six_seats()
