"""The Cheat house bot: it beats random-legal players (fixed seed, not tuned), its sure-lie
knowledge is never wrong, and it decides from its own seat's view only."""
import random

import pytest

from zkbluff.games.cheat.bot import ArenaError, HouseBot, RandomBot, arena, play_table
from zkbluff.games.cheat.rules import DECK, PER_RANK, CheatRules, Deal, Phase, Play, Reveal, deal_sizes
from zkbluff.games.engine.rules import NO_SEAT


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_the_house_bot_beats_random_legal_players_on_average(n):
    rep = arena(n, hands=100, seed=2026)
    assert rep.hands == 100
    assert rep.house_vs_random < rep.random_vs_house
    assert rep.house_vs_random < rep.house_vs_house  # random players are easier than itself


class SpyHouse(HouseBot):
    """Records the plays it judged a sure lie, and checks them when they are turned over."""

    def __init__(self, rng):
        super().__init__(rng)
        self.sure: set = set()
        self.checked = 0

    def wants_call(self, state, hand):
        if self.truth_chance(state) == 0.0:
            self.sure.add((state.hand_no, state.set_aside, state.pile))
        return super().wants_call(state, hand)

    def observe(self, seat, action, before, after, hand):
        if isinstance(action, Reveal) and (before.hand_no, before.set_aside, before.pile) in self.sure:
            assert not all(DECK.counts_as(c, before.rank) for c in action.cards), "a 'sure lie' was true"
            self.checked += 1
        super().observe(seat, action, before, after, hand)


def test_a_sure_lie_is_always_a_lie():
    rng = random.Random(7)
    spies = []
    for n in (3, 4, 5, 6):
        pols = [SpyHouse(random.Random(i)) if i < 2 else RandomBot(random.Random(i)) for i in range(n)]
        spies += pols[:2]
        play_table(pols, 7, rng)
    assert sum(s.checked for s in spies) > 20  # the check ran often


def test_a_claim_beyond_four_counting_its_own_cards_is_a_sure_lie():
    bot = HouseBot(random.Random(0))
    t = CheatRules(3, first_dealer=2)
    t.apply(NO_SEAT, Deal(deal_sizes(3, 2)))
    kings = [c for c in range(DECK.size) if DECK.counts_as(c, 11)]
    hand = frozenset(kings[:2] + [c for c in range(DECK.size) if c not in kings][:15])
    bot.new_hand(1, hand, t.public_state())
    t.apply(0, Play(11, 3))  # two Kings in the bot's hand, three claimed: 5 > 4
    assert PER_RANK[11] == 4
    assert bot.truth_chance(t.public_state()) == 0.0 and bot.wants_call(t.public_state(), hand)
    u = CheatRules(3, first_dealer=2)
    u.apply(NO_SEAT, Deal(deal_sizes(3, 2)))
    u.apply(0, Play(11, 2))  # 2 + 2 = 4: possible
    assert 0.0 < bot.truth_chance(u.public_state())


def test_it_calls_more_on_last_cards():
    """The same claim, once with cards left and once as the last cards."""
    bot = HouseBot(random.Random(0))
    t = CheatRules(3, first_dealer=2)
    t.apply(NO_SEAT, Deal(deal_sizes(3, 2)))
    bot.new_hand(1, frozenset(range(17, 34)), t.public_state())
    t.apply(0, Play(11, 1))
    s = t.public_state()
    assert not bot.wants_call(s, frozenset(range(17, 34)))  # an opening with cards left
    from dataclasses import replace
    last = replace(s, hand_sizes=(0,) + s.hand_sizes[1:])
    assert bot.wants_call(last, frozenset(range(17, 34)))


def test_it_tracks_what_it_picked_up():
    """After a pick-up (its own or another seat's) the bot knows who holds the turned-over
    cards, and what it picked up itself is in its hand."""
    rng = random.Random(3)
    seen = []

    class Watch(HouseBot):
        def observe(self, seat, action, before, after, hand):
            super().observe(seat, action, before, after, hand)
            if before.phase == Phase.PICKUP:
                assert all(self.where[c] == {seat} for c in before.revealed)
                if seat == self.seat:
                    assert set(before.revealed) <= hand
                    assert all(self.where[c] == {self.seat} for c in hand)
                seen.append(seat == self.seat)

    play_table([Watch(random.Random(i)) for i in range(4)], 3, rng)
    assert True in seen and False in seen


def test_the_arena_refuses_a_policy_that_plays_cards_it_does_not_hold():
    class Thief(RandomBot):
        def choose_play(self, state, hand, legal):
            a, cards = super().choose_play(state, hand, legal)
            if isinstance(a, Play):
                outside = [c for c in range(DECK.size) if c not in hand]
                return a, tuple(outside[:a.count])
            return a, cards

    with pytest.raises(ArenaError, match="does not hold"):
        play_table([Thief(random.Random(0))] + [RandomBot(random.Random(i)) for i in (1, 2)], 3, random.Random(0))
