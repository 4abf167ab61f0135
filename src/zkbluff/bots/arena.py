"""Fast bot-against-bot matches on the pure rules, without cryptography: a dealer that
knows every hand settles challenges natively. For measuring policies (win rates), never
as a stand-in for the prover in end-to-end tests."""
from __future__ import annotations

import random
from typing import Optional

from zkbluff.games.proof_or_bluff.rules import MODES, ClassicRules, FiveUpRules
from zkbluff.statements.cards import NO_RANK, lies_native


def _obs(rules, seat: int, hand: list[int]) -> dict:
    from dataclasses import asdict

    obs = {k: v for k, v in asdict(rules.s).items() if k != "mode"}
    obs["target"] = rules.s.mode.target if hasattr(rules.s, "mode") else rules.s.target
    obs.update(seat=seat, hand=list(hand), legal=rules.legal_actions(seat), history=[])
    return obs


def play_classic(agents, mode: str = "standard", seed: int = 0, max_moves: int = 5000) -> Optional[int]:
    """Winner seat, or None for a draw."""
    rng = random.Random(seed)
    m = MODES[mode]
    rules = ClassicRules(m, rng.randrange(13))
    hands: list[list[int]] = [[], []]
    last_play: list[int] = []
    for _ in range(max_moves):
        s = rules.s
        if s.phase == "over":
            return s.winner
        if s.phase == "deal":
            deck = list(range(52))
            rng.shuffle(deck)
            hands = [deck[: m.hand_size], deck[m.hand_size: 2 * m.hand_size]]
            rules.deal()
            continue
        seat = s.to_move
        if s.phase == "prove":
            rules.resolve(all(c % 13 == s.claim[2] for c in last_play))
            continue
        action = agents[seat].act(_obs(rules, seat, hands[seat]))
        if action[0] == "play":
            cards = list(action[1])
            rules.play(seat, len(cards))
            for c in cards:
                hands[seat].remove(c)
            last_play = cards
        elif action[0] == "accept":
            rules.accept(seat)
        else:
            rules.challenge(seat)
    raise RuntimeError("match did not end")


def play_five_up(agents, mode: str = "standard", seed: int = 0, max_moves: int = 5000) -> Optional[int]:
    rng = random.Random(seed)
    rules = FiveUpRules(mode)
    hands: list[list[int]] = [[], []]
    for _ in range(max_moves):
        s = rules.s
        if s.phase == "over":
            return s.winner
        if s.phase == "deal":
            deck = list(range(52))
            rng.shuffle(deck)
            hands = [deck[0:2], deck[2:4]]
            rules.deal(sum(1 << c for c in deck[4:9]))
            continue
        seat = s.to_move
        if s.phase == "prove":
            names = list(s.claim[1]) + [NO_RANK] * (2 - len(s.claim[1]))
            rules.resolve(lies_native(sum(1 << c for c in hands[seat]), s.board, names[0], names[1]))
            continue
        action = agents[seat].act(_obs(rules, seat, hands[seat]))
        if action[0] == "claim":
            rules.claim(seat, tuple(action[1]))
        elif action[0] == "accept":
            rules.accept(seat)
        else:
            rules.challenge(seat)
    raise RuntimeError("match did not end")


def win_rate(play, make_a, make_b, matches: int = 100, mode: str = "standard") -> dict:
    """Results of policy A against policy B, A taking each seat half the time."""
    wins = draws = 0
    for i in range(matches):
        a, b = make_a(1000 + i), make_b(2000 + i)
        seat_a = i % 2
        agents = [a, b] if seat_a == 0 else [b, a]
        w = play(agents, mode, seed=i)
        if w is None:
            draws += 1
        elif w == seat_a:
            wins += 1
    return {"matches": matches, "wins": wins, "draws": draws, "losses": matches - wins - draws}
