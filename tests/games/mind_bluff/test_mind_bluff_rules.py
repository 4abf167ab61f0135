"""Every rule of seed 001 (Mind Bluff) and issue 15 as a named test, on the pure rules."""
import random
from collections import Counter

import pytest

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT, Result
from zkbluff.games.mind_bluff.arena import play_series, win_rate
from zkbluff.games.mind_bluff.bot import HouseBot, RandomBot
from zkbluff.games.mind_bluff.bowl import Bowl
from zkbluff.games.mind_bluff.rules import (
    PACING, AllDone, AllDoneVerdict, Believe, Claim, Consent, Doubt, DoubtVerdict, Eat, EatVerdict, EndReason,
    EventKind, MindBluffRules, Phase, Reveal, RevealEntropy, StartGame, action_from_data,
)
from zkbluff.field import r as FIELD_ORDER
from zkbluff.gadgets.native import poseidon
from zkbluff.statements.values import start_draw_native

P1, P2 = 0, 1


def started(game_first=(1, P1), humans=(True, True)) -> MindBluffRules:
    r = MindBluffRules(humans)
    r.apply(NO_SEAT, StartGame(*game_first))
    return r


def eat_and_claim(r, seat, claim, proven=False, ate_last=False):
    r.apply(seat, Eat())
    r.apply(NO_SEAT, EatVerdict(ate_last))
    if not ate_last:
        r.apply(seat, Claim(claim, proven))


def unchanged(r):
    return r.public_state()


# ------------------------------------------------------------------ series

def win_game(r, winner):
    """End the current game with ``winner`` winning by All done; the referee's reveal follows."""
    r.apply(r.to_move, AllDone()) if r.to_move == winner else _pass_turn(r, winner)
    if r.phase == Phase.ALL_DONE_VERDICT:
        r.apply(NO_SEAT, AllDoneVerdict(True))
    reveal(r)


def reveal(r):
    assert r.phase == Phase.REVEAL and r.to_move is NO_SEAT
    r.apply(NO_SEAT, Reveal(r.game, 30, (), (), (), "", "", ""))


def draw(r):
    """Before game 3 each seat reveals its draw entropy (the spec checks its commitment)."""
    assert r.phase == Phase.DRAW
    r.apply(r.to_move, RevealEntropy("a"))
    r.apply(r.to_move, RevealEntropy("b"))
    assert r.phase == Phase.START


def _pass_turn(r, winner):
    loser = r.to_move
    eat_and_claim(r, loser, 1)
    r.apply(winner, Believe())
    r.apply(winner, AllDone())


def consent_all(r):
    for s in (P1, P2):
        if r.humans[s] and r.phase == Phase.NEXT_GAME:
            r.apply(s, Consent())


def test_game_one_p1_first_with_30():
    r = started()
    s = r.public_state()
    assert (s.game, s.first, s.to_move, s.start, s.phase) == (1, P1, P1, 30, Phase.TURN)
    with pytest.raises(IllegalMove, match="opened by P1"):
        MindBluffRules().apply(NO_SEAT, StartGame(1, P2))


def test_game_two_p2_first_with_30():
    r = started()
    win_game(r, P1)
    consent_all(r)
    with pytest.raises(IllegalMove, match="opened by P2"):
        r.apply(NO_SEAT, StartGame(2, P1))
    r.apply(NO_SEAT, StartGame(2, P2))
    s = r.public_state()
    assert (s.game, s.first, s.to_move, s.start) == (2, P2, P2, 30)


def test_first_to_two_wins_takes_the_series_in_two_games():
    r = started()
    win_game(r, P1)
    consent_all(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    win_game(r, P1)
    assert r.over and r.phase == Phase.SERIES_OVER
    assert r.result() == Result((1, 2), (2, 0), "P1 won the series 2–0")
    with pytest.raises(IllegalMove):
        r.apply(NO_SEAT, StartGame(3, P1))  # no third game after 2-0


@pytest.mark.parametrize("coin", [P1, P2])
def test_game_three_only_at_one_all_first_player_by_coin_start_hidden(coin):
    r = started()
    win_game(r, P1)
    consent_all(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    win_game(r, P2)
    assert r.public_state().wins == (1, 1) and not r.over
    consent_all(r)
    with pytest.raises(IllegalMove, match="draw"):   # game 3 waits for both seats' draw entropies
        r.apply(NO_SEAT, StartGame(3, coin))
    draw(r)
    r.apply(NO_SEAT, StartGame(3, coin))
    s = r.public_state()
    assert (s.game, s.first, s.to_move, s.start) == (3, coin, coin, None)   # hidden: not 30
    assert s.events[0].hold_s == PACING.coin_animation_s == 10.0
    win_game(r, other := 1 - coin)
    assert r.result().winners == (other,) and r.result().scores[other] == 2
    assert r.public_state().games[-1].game == 3


def test_at_most_three_games():
    rec = play_series([RandomBot(1), RandomBot(2)], seed=3)
    assert 2 <= len(rec.rules.games) <= 3


def test_result_is_none_before_the_series_ends():
    r = started()
    assert r.result() is None
    win_game(r, P2)
    assert r.result() is None and not r.over


# ------------------------------------------------------------------ game 3's draw

def test_game_three_start_is_uniform_and_the_coin_fair():
    """Chi-square over 3000 draws (fixed seed), native derivation: start uniform over
    {29, 30, 31}, coin uniform, and the two independent (critical values at p = 0.001)."""
    rng = random.Random(2026)  # many seeds: every party's entropy drawn afresh
    draws = [start_draw_native(rng.getrandbits(254) % FIELD_ORDER, (rng.getrandbits(253), rng.getrandbits(253)))
             for _ in range(3000)]

    def chi2(counts, cells, n):
        return sum((counts.get(c, 0) - n / len(cells)) ** 2 / (n / len(cells)) for c in cells)

    starts = Counter(s for s, _ in draws)
    assert set(starts) == {29, 30, 31}
    assert chi2(starts, (29, 30, 31), 3000) < 13.82
    assert chi2(Counter(c for _, c in draws), (0, 1), 3000) < 10.83
    cells = [(s, c) for s in (29, 30, 31) for c in (0, 1)]
    assert chi2(Counter(draws), cells, 3000) < 20.52
    # the twin: a biased derivation (low 2 bits, mod 3) is caught by the same test
    biased = Counter(29 + (poseidon([e, 1]) % 4) % 3 for e in range(1500))
    assert chi2(biased, (29, 30, 31), 1500) > 13.82


# ------------------------------------------------------------------ a turn

def test_a_turn_is_eat_or_all_done():
    r = started()
    assert r.legal_actions(P1) == [Eat(), AllDone()]
    assert r.legal_actions(P2) == []
    with pytest.raises(IllegalMove, match="out of turn"):
        r.apply(P2, Eat())


def test_choice_reaching_the_count_eats_the_last_and_loses_before_any_claim():
    r = started()
    r.apply(P1, Eat())
    assert r.phase == Phase.EAT_VERDICT and r.to_move is NO_SEAT
    before = unchanged(r)
    with pytest.raises(IllegalMove):
        r.apply(P1, Claim(1, False))  # no claim before the referee's verdict
    assert r.public_state() == before
    r.apply(NO_SEAT, EatVerdict(True))
    assert r.games[-1].winner == P2 and r.games[-1].reason == EndReason.ATE_LAST
    with pytest.raises(IllegalMove):
        r.apply(P1, Claim(1, False))
    assert Bowl(3).eat(3) is True and Bowl(2).eat(3) is True and Bowl(4).eat(3) is False


def test_survived_then_claim_one_to_three():
    r = started()
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    assert r.legal_actions(P1) == [Claim(1, False), Claim(2, False), Claim(3, False)]
    for bad in (0, 4, True):
        with pytest.raises(IllegalMove, match="amount"):
            r.apply(P1, Claim(bad, False))
    r.apply(P1, Claim(3, False))
    assert r.phase == Phase.RESPOND and r.to_move == P2


def test_all_done_wins_iff_exactly_one_remains():
    r = started()
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(True))
    assert r.games[-1].winner == P1 and r.games[-1].reason == EndReason.ALL_DONE_WON
    r = started()
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))
    assert r.games[-1].winner == P2 and r.games[-1].reason == EndReason.ALL_DONE_LOST
    assert Bowl(1).exactly_one() and not Bowl(2).exactly_one()


def test_all_done_unavailable_after_eating():
    r = started()
    r.apply(P1, Eat())
    with pytest.raises(IllegalMove):
        r.apply(P1, AllDone())
    r.apply(NO_SEAT, EatVerdict(False))
    with pytest.raises(IllegalMove, match="unavailable after eating"):
        r.apply(P1, AllDone())


def test_all_done_allowed_with_debt():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))  # BLUFF: P1 owes one
    eat_and_claim(r, P2, 1)
    r.apply(P1, Believe())
    assert r.debts == [1, 0] and AllDone() in r.legal_actions(P1)
    r.apply(P1, AllDone())
    assert r.phase == Phase.ALL_DONE_VERDICT


def test_all_done_suspense_is_data():
    r = started()
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))
    ev = [e for e in r.games[-1].events if e.kind == EventKind.ALL_DONE_RESULT]
    assert ev[0].hold_s == PACING.all_done_suspense_s == 3.6


# ------------------------------------------------------------------ believe, doubt, debt

def test_lies_allowed_without_debt_and_free_claims_carry_no_proof():
    r = started()
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    with pytest.raises(IllegalMove, match="owes no honest claim"):
        r.apply(P1, Claim(2, True))
    r.apply(P1, Claim(2, False))
    assert not r.claim.forced_honest


def test_believe_keeps_the_choice_hidden_and_turns_alternate():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Believe())
    s = r.public_state()
    assert s.to_move == P2 and s.phase == Phase.TURN and s.debts == (0, 0)
    assert [e.kind for e in s.events][-1] == EventKind.BELIEVED
    assert all(e.outcome is None for e in s.events)


def test_doubt_true_gives_the_challenger_a_debt():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    assert r.phase == Phase.DOUBT_VERDICT and r.to_move is NO_SEAT
    r.apply(NO_SEAT, DoubtVerdict(True))
    assert r.debts == [0, 1] and r.to_move == P2


def test_doubt_bluff_gives_the_claimant_a_debt():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    assert r.debts == [1, 0] and r.to_move == P2


def test_doubt_pauses_play_for_four_and_a_half_seconds():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    assert r.events[-1].kind == EventKind.DOUBTED and r.events[-1].hold_s == PACING.doubt_hold_s == 4.5


def test_debt_is_public_and_stacks():
    r2 = started()
    eat_and_claim(r2, P1, 3)
    r2.apply(P2, Doubt())
    r2.apply(NO_SEAT, DoubtVerdict(False))
    eat_and_claim(r2, P2, 3)
    r2.apply(P1, Doubt())
    r2.apply(NO_SEAT, DoubtVerdict(True))   # P1 doubted a true claim: P1 owes two now
    assert r2.public_state().debts == (2, 0)


def test_a_claim_in_debt_must_be_proven_equal_and_is_marked_forced_honest():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    eat_and_claim(r, P2, 1)
    r.apply(P1, Believe())
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    assert r.legal_actions(P1) == [Claim(1, True), Claim(2, True), Claim(3, True)]


def test_a_claim_that_breaks_a_debt_is_refused():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    eat_and_claim(r, P2, 1)
    r.apply(P1, Believe())
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    before = r.public_state()
    with pytest.raises(IllegalMove, match="owes 1 honest claim"):
        r.apply(P1, Claim(3, False))
    assert r.public_state() == before


def test_an_honest_claim_in_debt_pays_one():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    eat_and_claim(r, P2, 1)
    r.apply(P1, Believe())
    assert r.debts == [1, 0]
    eat_and_claim(r, P1, 3, proven=True)
    assert r.debts == [0, 0] and r.claim.forced_honest
    assert r.events[-1].kind == EventKind.CLAIMED and r.events[-1].forced_honest


def test_doubting_a_forced_honest_claim_costs_the_challenger_a_debt():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    eat_and_claim(r, P2, 1)
    r.apply(P1, Believe())
    eat_and_claim(r, P1, 3, proven=True)
    r.apply(P2, Doubt())  # no referee verdict is needed: the claim was proven at claim time
    assert r.phase == Phase.TURN and r.debts == [0, 1] and r.to_move == P2
    v = r.events[-1]
    assert v.kind == EventKind.VERDICT and v.outcome is True and v.forced_honest


def test_losing_by_eating_does_not_consume_debt():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    eat_and_claim(r, P2, 1)
    r.apply(P1, Believe())
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(True))
    last = r.games[-1].events
    assert last[-1].kind == EventKind.GAME_ENDED and last[-1].debts == (1, 0)


# ------------------------------------------------------------------ between games

def test_next_game_needs_every_human_seat_and_a_bot_never_blocks():
    r = started()
    win_game(r, P1)
    assert r.phase == Phase.NEXT_GAME
    with pytest.raises(IllegalMove):
        r.apply(NO_SEAT, StartGame(2, P2))
    r.apply(P2, Consent())                   # either human seat may consent first
    with pytest.raises(IllegalMove, match="already"):
        r.apply(P2, Consent())
    assert r.phase == Phase.NEXT_GAME and r.to_move == P1
    r.apply(P1, Consent())
    assert r.phase == Phase.START
    r = started(humans=(True, False))
    win_game(r, P2)
    with pytest.raises(IllegalMove, match="bot"):
        r.apply(P2, Consent())
    r.apply(P1, Consent())
    assert r.phase == Phase.START
    r = started(humans=(False, False))
    win_game(r, P2)
    assert r.phase == Phase.START            # two bots: the room owner (referee) advances


def test_debt_and_history_reset_per_game():
    r = started()
    eat_and_claim(r, P1, 2)
    r.apply(P2, Doubt())
    r.apply(NO_SEAT, DoubtVerdict(False))
    r.apply(P2, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))  # P2 loses game 1 with P1 owing a debt
    assert r.games[-1].events[-1].debts == (1, 0)
    reveal(r)
    consent_all(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    s = r.public_state()
    assert s.debts == (0, 0) and [e.kind for e in s.events] == [EventKind.GAME_STARTED] and s.turn == 0
    assert len(s.games) == 1


def test_a_new_series_needs_consent():
    r = started()
    win_game(r, P1)
    consent_all(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    win_game(r, P1)
    assert r.over and not r.new_series_agreed
    r.apply(P1, Consent())
    assert not r.new_series_agreed
    r.apply(P2, Consent())
    assert r.new_series_agreed and r.over


# ------------------------------------------------------------------ typed actions

def test_actions_are_typed_and_strict():
    assert action_from_data("claim", {"amount": 2, "proven_equal": False}) == Claim(2, False)
    assert Claim(2, True).to_data() == {"amount": 2, "proven_equal": True}
    with pytest.raises(MalformedInput, match="true or false"):
        action_from_data("doubt_verdict", {"truthful": 1})
    with pytest.raises(MalformedInput, match="integer"):
        action_from_data("claim", {"amount": "2", "proven_equal": False})
    with pytest.raises(MalformedInput, match="unknown"):
        action_from_data("pass", {})
    with pytest.raises(MalformedInput, match="humans"):
        MindBluffRules((True,))


def test_referee_actions_only_from_the_referee():
    r = started()
    r.apply(P1, Eat())
    with pytest.raises(IllegalMove, match="out of turn"):
        r.apply(P1, EatVerdict(False))   # a seat cannot give its own verdict
    with pytest.raises(IllegalMove):
        r.apply(NO_SEAT, DoubtVerdict(True))


# ------------------------------------------------------------------ whole series

def _invariants(rules, bowl):
    s = rules.public_state()
    assert all(d >= 0 for d in s.debts)
    assert bowl is None or bowl.remaining >= 0
    assert sum(s.wins) == len(s.games) and max(s.wins) <= 2
    if s.phase in (Phase.TURN, Phase.CLAIM, Phase.RESPOND) and bowl is not None:
        assert bowl.remaining >= 1


@pytest.mark.parametrize("seed", range(60))
def test_whole_series_random_legal_and_house_with_invariants(seed):
    pols = [RandomBot(seed), HouseBot(seed + 1)] if seed % 2 else [HouseBot(seed), RandomBot(seed + 1)]
    if seed % 3 == 0:
        pols = [RandomBot(seed), RandomBot(seed + 7)]
    rec = play_series(pols, seed=seed, on_step=_invariants)
    rules = rec.rules
    wins = Counter(g.winner for g in rules.games)
    assert wins[rec.winner] == 2 and wins[1 - rec.winner] < 2
    assert rules.result().winners == (rec.winner,)
    assert [g.first for g in rules.games[:2]] == [0, 1][:len(rules.games[:2])]
    assert len(rules.games) == 3 or wins[rec.winner] == 2
    if len(rules.games) == 3:
        assert (Counter(g.winner for g in rules.games[:2])) == Counter({0: 1, 1: 1})
    # the winner of every game is exactly as the hidden truth says
    for g, start, choices in zip(rules.games, rec.starts, rec.choices):
        remaining, it = start, iter(choices)
        for e in g.events:
            if e.kind == EventKind.ATE:
                x = next(it)
                ate_last = x >= remaining
                remaining = 0 if ate_last else remaining - x
                if ate_last:
                    assert g.reason == EndReason.ATE_LAST and g.winner == 1 - e.seat
            elif e.kind == EventKind.ALL_DONE:
                assert (g.winner == e.seat) == (remaining == 1)
            assert remaining >= 0


def test_house_bot_beats_random_legal():
    res = win_rate(lambda s: HouseBot(s), lambda s: RandomBot(s), series=100, seed=1)
    assert res["rate"] >= 0.9, res


def test_house_bot_against_itself_is_balanced():
    res = win_rate(lambda s: HouseBot(s), lambda s: HouseBot(s), series=100, seed=2)
    assert 0.3 <= res["rate"] <= 0.7, res


def test_random_legal_is_random():
    """A twin: two random players win about equally (the arena is not rigged by seat)."""
    res = win_rate(lambda s: RandomBot(s), lambda s: RandomBot(s), series=100, seed=3)
    assert 0.3 <= res["rate"] <= 0.7, res


# ------------------------------------------------------------------ refusals change nothing

ALL_CANDIDATES = [StartGame(g, f) for g in (1, 2, 3, 4) for f in (0, 1)] + [
    Eat(), AllDone(), EatVerdict(True), EatVerdict(False), Believe(), Doubt(), DoubtVerdict(True),
    DoubtVerdict(False), AllDoneVerdict(True), AllDoneVerdict(False), Consent()] + [
    Claim(k, p) for k in (0, 1, 2, 3, 4) for p in (False, True)]


@pytest.mark.parametrize("seed", range(15))
def test_every_action_is_legal_or_refused_with_nothing_changed(seed):
    """At every step of random series, each candidate action from each party is either in
    legal_actions or refused by check with IllegalMove, leaving the public state as it was."""
    def probe(rules, bowl):
        before = rules.public_state()
        for party in (NO_SEAT, P1, P2):
            legal = rules.legal_actions(party)
            for a in ALL_CANDIDATES:
                if a in legal:
                    rules.check(party, a)
                else:
                    with pytest.raises(IllegalMove):
                        rules.check(party, a)
                    with pytest.raises(IllegalMove):
                        rules.apply(party, a)
                assert rules.public_state() == before
    play_series([RandomBot(seed), HouseBot(seed)], seed=seed, humans=(seed % 2 == 0, True), on_step=probe)


# ------------------------------------------------------------------ the referee's reveal and game 3's draw

def test_the_reveal_comes_after_the_end_and_never_before():
    r = started()
    with pytest.raises(IllegalMove, match="not allowed now"):          # a running game's truth: refused
        r.apply(NO_SEAT, Reveal(1, 30, (), (), (), "", "", ""))
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))
    assert r.phase == Phase.REVEAL and r.to_move is NO_SEAT
    with pytest.raises(IllegalMove, match="reveal"):                    # the next game waits for it
        r.apply(P1, Consent())
    with pytest.raises(IllegalMove, match="game 1's"):                  # another game's reveal
        r.apply(NO_SEAT, Reveal(2, 30, (), (), (), "", "", ""))
    with pytest.raises(IllegalMove, match="out of turn"):               # only the referee reveals
        r.apply(P2, Reveal(1, 30, (), (), (), "", "", ""))
    reveal(r)
    assert r.phase == Phase.NEXT_GAME


def test_the_series_is_over_only_after_the_last_reveal():
    r = started()
    win_game(r, P1)
    consent_all(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    r.apply(P2, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))
    assert not r.over and r.result() is None and r.phase == Phase.REVEAL
    reveal(r)
    assert r.over and r.result().winners == (P1,)


def test_game_three_waits_for_both_seats_draw_entropies():
    r = started(humans=(False, False))
    win_game(r, P1)
    r.apply(NO_SEAT, StartGame(2, P2))
    win_game(r, P2)
    assert r.phase == Phase.DRAW and r.to_move == P1
    with pytest.raises(IllegalMove, match="out of turn"):
        r.apply(P2, RevealEntropy("b"))
    r.apply(P1, RevealEntropy("a"))
    with pytest.raises(IllegalMove):                                    # once per seat
        r.apply(P1, RevealEntropy("a"))
    assert r.to_move == P2 and r.phase == Phase.DRAW
    r.apply(P2, RevealEntropy("b"))
    assert r.phase == Phase.START and r.to_move is NO_SEAT
