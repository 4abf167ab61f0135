"""Valid random inputs for each registered statement (shared by tests and by
vectors/statements/generate.py for a new statement's inputs). A statement that declares
its own sampler (``Statement.sample``, e.g. one held in a game folder) is drawn by it;
the shared catalog's statements are drawn here."""
from __future__ import annotations

import random

from zkbluff.statements.cards import NO_RANK


def random_mask(rng: random.Random, deck: int, k: int, avoid: int = 0) -> int:
    free = [c for c in range(deck) if not avoid >> c & 1]
    m = 0
    for c in rng.sample(free, k):
        m |= 1 << c
    return m


def salt(rng: random.Random) -> int:
    return rng.getrandbits(250)


def rank_mask_52(rank: int) -> int:
    return sum(1 << (rank + 13 * s) for s in range(4))


def valid_inputs(stmt, rng: random.Random) -> dict:
    if stmt.sample is not None:
        return stmt.sample(rng)
    name, prm = stmt.name, stmt.param_dict
    ctx = rng.getrandbits(253)
    if name == "card.deal.v1":
        deck, hands, board = prm["deck"], prm["hands"], prm["board"]
        taken = 0
        board_mask = random_mask(rng, deck, board)
        taken |= board_mask
        inp = {"board": board_mask, "context": ctx}
        for i, size in enumerate(hands):
            m = random_mask(rng, deck, size, taken)
            taken |= m
            inp[f"hand{i}"] = m
            inp[f"hand{i}_salt"] = salt(rng)
        return inp
    if name == "card.deal.v2":
        inp = {"round": rng.randrange(1 << 16), "context": ctx}
        for i in range(prm["entropies"]):
            inp[f"entropy{i}"] = salt(rng)
            inp[f"entropy{i}_salt"] = salt(rng)
        for i in range(len(prm["hands"])):
            inp[f"hand{i}_salt"] = salt(rng)
        return inp
    if name == "card.play.v1":
        deck, mx = prm["deck"], prm["max_play"]
        hand = random_mask(rng, deck, rng.randint(mx, min(deck, 7 + mx)))
        bits = [c for c in range(deck) if hand >> c & 1]
        play = sum(1 << c for c in rng.sample(bits, rng.randint(1, mx)))
        return {"old_hand": hand, "old_salt": salt(rng), "play": play, "play_salt": salt(rng),
                "new_salt": salt(rng), "context": ctx}
    if name == "card.claim.v1":
        deck = prm["deck"]
        play = random_mask(rng, deck, rng.randint(1, 4))
        if deck == 52:
            mask = rank_mask_52(rng.randrange(13))
        else:
            mask = random_mask(rng, deck, 8)
        if rng.random() < 0.5:  # make some claims true
            mask |= play
        return {"play": play, "play_salt": salt(rng), "rank_mask": mask, "context": ctx}
    if name == "card.absorb.v1":
        hand = random_mask(rng, 52, rng.randint(0, 20))
        pile = random_mask(rng, 52, rng.randint(1, 10), hand)
        return {"old_hand": hand, "old_salt": salt(rng), "play": pile, "play_salt": salt(rng),
                "new_salt": salt(rng), "context": ctx}
    if name == "card.match.v1":
        board = random_mask(rng, 52, 5)
        hand = random_mask(rng, 52, 2, board)
        board_ranks = sorted({c % 13 for c in range(52) if board >> c & 1})
        n = rng.randint(0, 2)
        names = [rng.choice(board_ranks) for _ in range(n)] + [NO_RANK] * (2 - n)
        return {"hand": hand, "hand_salt": salt(rng), "board": board, "name1": names[0], "name2": names[1],
                "context": ctx}
    if name == "value.choice.v1":
        return {"choice": rng.randint(1, 3), "choice_salt": salt(rng), "claim": rng.randint(1, 3), "context": ctx}
    if name == "value.counter_step.v1":
        return {"old_count": rng.randint(1, 31), "old_salt": salt(rng), "choice": rng.randint(1, 3),
                "choice_salt": salt(rng), "new_salt": salt(rng), "context": ctx}
    if name == "value.counter_is.v1":
        return {"count": rng.randint(0, 31), "salt": salt(rng), "target": rng.choice([1, 2, rng.randint(0, 40)]),
                "context": ctx}
    if name == "value.chamber.v1":
        return {"chamber": rng.randrange(prm["chambers"]), "salt": salt(rng), "pull": rng.randrange(6),
                "context": ctx}
    if name == "revolver.share.v1":
        return {"seed": rng.getrandbits(253), "salt": salt(rng), "revolver": rng.randrange(4),
                "pull": rng.randrange(prm["chambers"]), "context": ctx}
    if name == "card.pick.v1":
        return {"hand": random_mask(rng, prm["deck"], rng.randint(1, prm["max_hand"])), "hand_salt": salt(rng),
                "play_salt": salt(rng), "seed": rng.getrandbits(253), "seed_salt": salt(rng), "context": ctx}
    if name == "value.start_draw.v1":
        return {"referee_entropy": salt(rng), "referee_salt": salt(rng), "start_salt": salt(rng),
                "entropy0": rng.getrandbits(253), "entropy1": rng.getrandbits(253), "context": ctx}
    if name == "card.permutation.v1":
        cards = list(range(prm["deck"]))
        rng.shuffle(cards)
        return {**{f"card{j}": c for j, c in enumerate(cards)},
                **{f"salt{j}": salt(rng) for j in range(prm["deck"])}, "context": ctx}
    if name == "card.chosen_hand.v1":
        from zkbluff.gadgets.native import commit
        from zkbluff.statements.oblivious import chosen_hand_inputs

        deck, hand = prm["deck"], prm["hand"]
        cards = list(range(deck))
        rng.shuffle(cards)
        salts = [salt(rng) for _ in cards]
        picked = rng.sample(range(deck), 2 * hand + rng.randint(0, 5))
        mine, others = picked[:hand], sum(1 << q for q in picked[hand:])
        as_dealer = rng.random() < 0.5  # the dealer's use: its positions required
        return chosen_hand_inputs([commit(c, s) for c, s in zip(cards, salts)],
                                  [(q, cards[q], salts[q]) for q in mine], salt(rng), others,
                                  sum(1 << q for q in mine) if as_dealer else 0, ctx)
    if name == "card.hand_binding.v1":
        from zkbluff.statements.hand_binding import hand_binding_inputs

        cards = rng.sample(range(prm["deck"]), prm["hand"])
        return hand_binding_inputs(cards, salt(rng), rng.getrandbits(253), ctx)
    raise KeyError(name)
