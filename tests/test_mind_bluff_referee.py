"""The proven referee: every verdict a Groth16 proof (mcl) against the committed choices
and the committed count; a referee that lies is refused by its own prover and, when it
forges, by the client's check."""
import dataclasses
import random

import pytest

from zkbluff.errors import CommitmentMismatch, IllegalMove, InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.gadgets.native import commit
from zkbluff.games.mind_bluff.bot import HouseBot, RandomBot
from zkbluff.games.mind_bluff.referee import (
    COUNT_IS, STEP, KeyRing, ProvenReferee, VerdictChecker, commit_choice, entropy_field, prove_choice_range,
    prove_honest_claim,
)
from zkbluff.games.mind_bluff.rules import (
    AllDoneVerdict, DoubtVerdict, Eat, EatVerdict, EndReason, MindBluffRules, StartGame,
)
from zkbluff.games.mind_bluff.session import play_proven_series
from zkbluff.protocol.commit_reveal import commit_entropy
from zkbluff.statements.values import start_draw_native


@pytest.fixture(scope="module")
def keys(mcl):
    return KeyRing.insecure_for_tests("mind-bluff-referee", backend=mcl)


def salts(seed=1):
    rng = random.Random(seed)
    return lambda: rng.getrandbits(250)


def opened(keys, ref, checker, ctx=10):
    action, p = ref.start_game(1, ctx)
    checker.start(action, p, ctx)
    return action


def eat(keys, ref, checker, choice, ctx):
    o = commit_choice(choice, 1000 + ctx)
    checker.choice_posted(o.commitment, prove_choice_range(keys, o, ctx), ctx)
    v, p = ref.eat(o, o.commitment, ctx + 1)
    checker.eat_verdict(v, p, ctx + 1)
    return o, v


def forged(p, **public):
    """The referee's proof with a public value it wishes were different."""
    return dataclasses.replace(p, public={**p.public, **public})


def test_games_one_and_two_open_with_a_proven_30(keys):
    ref = ProvenReferee(keys, salts=salts())
    checker = VerdictChecker(keys, ref.commitment)
    action, p = ref.start_game(1, 5)
    assert action == StartGame(1, 0)
    checker.start(action, p, 5)
    with pytest.raises(InvalidProof):
        checker.start(action, forged(p, commitment=commit(29, 1)), 5)
    with pytest.raises(UnsatisfiedConstraint, match="equal"):
        keys.prove(COUNT_IS, {"count": 29, "salt": 1, "target": 30, "equal": 1, "context": 5})


def test_survived_and_ate_last_are_proven_and_a_false_one_refused(keys):
    ref = ProvenReferee(keys, salts=salts())
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    for i in range(9):
        o, v = eat(keys, ref, checker, 3, 20 + 2 * i)
        assert v == EatVerdict(False)                # 30 - 27 = 3 left
    # the referee now wants to say "survived" to an eat of 3 with 3 left: its prover refuses
    g = ref.game
    o = commit_choice(3, 77)
    checker.choice_posted(o.commitment, prove_choice_range(keys, o, 60), 60)
    with pytest.raises(UnsatisfiedConstraint, match="ate_last"):
        keys.prove(STEP, {"old_count": g.bowl.remaining, "old_salt": g.count_salts[-1], "choice": 3,
                          "choice_salt": 77, "new_salt": 5, "ate_last": 0, "context": 61})
    v, p = ref.eat(o, o.commitment, 61)
    assert v == EatVerdict(True)
    with pytest.raises(InvalidProof):              # a forged "survived" fails verification
        checker.eat_verdict(EatVerdict(False), forged(p, ate_last=0), 61)
    with pytest.raises(IllegalMove, match="ate_last"):  # a proof of "ate the last" cannot back "survived"
        checker.eat_verdict(EatVerdict(False), p, 61)
    checker.eat_verdict(v, p, 61)


def test_all_done_result_proven_and_a_false_one_refused(keys):
    ref = ProvenReferee(keys, salts=salts(2))
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    v, p = ref.all_done(12)
    assert v == AllDoneVerdict(False)
    assert ref.reveal().start == 30  # the game ended: now (and only now) its truth comes out
    with pytest.raises(InvalidProof):
        checker.all_done_verdict(AllDoneVerdict(True), forged(p, equal=1), 12)
    with pytest.raises(IllegalMove):
        checker.all_done_verdict(AllDoneVerdict(True), p, 12)
    g = ref.game
    with pytest.raises(UnsatisfiedConstraint, match="equal"):
        keys.prove(COUNT_IS, {"count": g.bowl.remaining, "salt": g.count_salts[-1], "target": 1, "equal": 1,
                              "context": 12})
    checker.all_done_verdict(v, p, 12)
    ref = ProvenReferee(keys, salts=salts(12))
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    for i, c in enumerate((3,) * 9 + (2,)):
        eat(keys, ref, checker, c, 20 + 2 * i)   # 30 - 29 = 1 left
    v, p = ref.all_done(50)
    assert v == AllDoneVerdict(True)
    checker.all_done_verdict(v, p, 50)


def test_all_done_against_a_stale_count_is_refused(keys):
    ref = ProvenReferee(keys, salts=salts(3))
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    with pytest.raises(IllegalMove, match="still running"):
        ref.reveal()
    start_salt = ref.game.count_salts[0]
    eat(keys, ref, checker, 2, 20)
    # a referee proving All done about the start commitment instead of the current count
    stale = keys.prove(COUNT_IS, {"count": 30, "salt": start_salt, "target": 1, "context": 30})
    with pytest.raises(IllegalMove, match="commitment"):
        checker.all_done_verdict(AllDoneVerdict(False), stale, 30)


def test_true_bluff_proven_and_a_false_verdict_refused(keys):
    ref = ProvenReferee(keys, salts=salts(4))
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    o, _ = eat(keys, ref, checker, 2, 20)
    v, p = ref.doubt(2, 30)
    assert v == DoubtVerdict(True)
    checker.doubt_verdict(2, v, p, 30)
    with pytest.raises(InvalidProof):
        checker.doubt_verdict(2, DoubtVerdict(False), forged(p, verdict=0), 30)
    with pytest.raises(IllegalMove):  # the proof is about the claim 2; it cannot settle a claim of 3
        checker.doubt_verdict(3, DoubtVerdict(True), p, 30)
    v, p = ref.doubt(3, 31)
    assert v == DoubtVerdict(False)
    checker.doubt_verdict(3, v, p, 31)
    with pytest.raises(IllegalMove, match="context"):  # a proof from another turn
        checker.doubt_verdict(3, v, p, 32)


def test_forced_honest_claim_proven_and_a_lie_refused(keys):
    ref = ProvenReferee(keys, salts=salts(5))
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    o, _ = eat(keys, ref, checker, 1, 20)
    checker.honest_claim(1, prove_honest_claim(keys, o, 1, 22), 22)
    with pytest.raises(UnsatisfiedConstraint, match="verdict"):
        prove_honest_claim(keys, o, 3, 22)     # a claim that breaks the debt cannot be proven
    p = prove_honest_claim(keys, o, 1, 22)
    with pytest.raises(InvalidProof):
        checker.honest_claim(3, forged(p, claim=3), 22)


def test_a_sealed_choice_that_does_not_open_the_posted_commitment_is_refused(keys):
    ref = ProvenReferee(keys, salts=salts(6))
    checker = VerdictChecker(keys, ref.commitment)
    opened(keys, ref, checker)
    o = commit_choice(2, 9)
    with pytest.raises(CommitmentMismatch):
        ref.eat(commit_choice(3, 9), o.commitment, 20)
    with pytest.raises(MalformedInput):
        commit_choice(4)


def test_game_three_start_is_the_draw_of_every_entropy_and_stays_hidden(keys):
    ref = ProvenReferee(keys, entropy=12345, entropy_salt=678, salts=salts(7))
    checker = VerdictChecker(keys, ref.commitment)
    hexes = ("ab" * 32, "cd" * 32)
    ents = tuple(entropy_field(h) for h in hexes)
    action, p = ref.start_game(3, 40, ents)
    start, coin = start_draw_native(12345, ents)
    assert action == StartGame(3, coin) and ref.game.bowl.start == start
    assert start not in (p.public["start_commitment"],) and set(p.public) == {
        "referee_commitment", "entropy0", "entropy1", "start_commitment", "coin", "context"}
    checker.start(action, p, 40, ents)
    with pytest.raises(IllegalMove):          # a coin other than the draw's
        checker.start(StartGame(3, 1 - coin), p, 40, ents)
    with pytest.raises(InvalidProof):
        checker.start(StartGame(3, 1 - coin), forged(p, coin=1 - coin), 40, ents)
    other = (ents[0], ents[1] + 1)
    with pytest.raises(IllegalMove):          # a draw that ignored a seat's revealed entropy
        checker.start(action, p, 40, other)
    # a referee that picks its own start (not the draw) cannot prove it
    chosen = next(s for s in (29, 30, 31) if s != start)
    with pytest.raises(InvalidProof):
        checker.start(action, forged(p, start_commitment=commit(chosen, 1)), 40, ents)
    rules = MindBluffRules((False, False))
    for g in (1, 2):
        rules.apply(None, StartGame(g, g - 1))
        rules.apply(rules.to_move, Eat())
        rules.apply(None, EatVerdict(True))
    rules.apply(None, action)
    assert rules.public_state().start is None and all(e.start is None for e in rules.public_state().events)
    ref.all_done(41)                          # the game ends; only now is its truth revealed
    rev = ref.reveal()
    assert rev.start == start and rev.referee_entropy == 12345
    with pytest.raises(MalformedInput):
        entropy_field("AB" * 32)


def test_an_honest_proven_series_every_verdict_checked_and_reviewed(keys):
    rec = play_proven_series(keys, [RandomBot(3), HouseBot(4)], salts=salts(8),
                             seat_entropies=("01" * 32, "02" * 32))
    res = rec.rules.result()
    assert res is not None and sorted(res.placements) == [1, 2]
    assert len(rec.reviews) == len(rec.rules.games) == len(rec.reveals)
    for review, record in zip(rec.reviews, rec.rules.games):
        assert review.winner == record.winner and review.end_reason == record.reason
    assert rec.proofs >= 3 * len(rec.rules.games)
    assert rec.seat_entropy_commitments == (commit_entropy("01" * 32), commit_entropy("02" * 32))


@pytest.mark.slow
def test_proven_series_to_game_three(keys):
    """A full three-game series with every step proven. Bots decide from public events and
    their own choices only, so the pure-rules arena finds seeds that reach 1-1."""
    from zkbluff.games.mind_bluff.arena import play_series

    seed = next(i for i in range(50) if len(play_series([HouseBot(i), HouseBot(i + 10)], seed=i).rules.games) == 3)
    rec = play_proven_series(keys, [HouseBot(seed), HouseBot(seed + 10)], salts=salts(9),
                             seat_entropies=("03" * 32, "04" * 32))
    assert rec.rules.over and len(rec.rules.games) == 3
    assert [r.start for r in rec.reviews][:2] == [30, 30] and rec.reviews[2].start in (29, 30, 31)
    for rv, record in zip(rec.reviews, rec.rules.games):
        if record.reason == EndReason.ATE_LAST:
            assert rv.turns[-1].ate_last


class LyingReferee(ProvenReferee):
    """A referee that lies about one kind of verdict and forges the disclosed bit (its
    prover would refuse the lie, so it edits the public input of an honest proof)."""

    def __init__(self, keys, lie, **kw):
        super().__init__(keys, **kw)
        self.lie = lie

    def eat(self, opening, posted, context):
        v, p = super().eat(opening, posted, context)
        if self.lie == "survived" and v.ate_last:
            return EatVerdict(False), forged(p, ate_last=0)
        return v, p

    def all_done(self, context):
        v, p = super().all_done(context)
        if self.lie == "all_done":
            return AllDoneVerdict(not v.exactly_one), forged(p, equal=1 - p.public["equal"])
        return v, p

    def doubt(self, claim, context):
        v, p = super().doubt(claim, context)
        if self.lie == "verdict":
            return DoubtVerdict(not v.truthful), forged(p, verdict=1 - p.public["verdict"])
        return v, p


@pytest.mark.slow
@pytest.mark.parametrize("lie", ["survived", "all_done", "verdict"])
def test_a_lying_referee_is_caught_by_the_table_in_a_real_game(keys, lie):
    """Whole proven games against house/random bots: the first false verdict stops the game."""
    caught = False
    for seed in range(6):
        ref = LyingReferee(keys, lie, salts=salts(seed))
        try:
            play_proven_series(keys, [HouseBot(seed), HouseBot(seed + 1)], referee=ref)
        except InvalidProof:
            caught = True
            break
    assert caught


def test_the_client_check_needs_only_verifying_keys_and_keeps_the_order(keys):
    ref = ProvenReferee(keys, salts=salts(13))
    checker = VerdictChecker(keys.verifying_keys(), ref.commitment)
    with pytest.raises(IllegalMove, match="no game"):
        checker.all_done_verdict(AllDoneVerdict(False), ref.keys.prove(COUNT_IS, {
            "count": 30, "salt": 1, "target": 1, "context": 1}), 1)
    opened(keys, ref, checker)
    o = commit_choice(2, 5)
    with pytest.raises(IllegalMove, match="no settled eat"):   # a verdict on a claim before any eat
        checker.doubt_verdict(2, DoubtVerdict(True), prove_honest_claim(keys, o, 2, 3), 3)
    checker.choice_posted(o.commitment, prove_choice_range(keys, o, 4), 4)
    with pytest.raises(IllegalMove, match="no settled eat"):   # the eat has no verdict yet
        checker.honest_claim(2, prove_honest_claim(keys, o, 2, 5), 5)
    v, p = ref.eat(o, o.commitment, 6)
    checker.eat_verdict(v, p, 6)
    with pytest.raises(IllegalMove, match="waiting"):          # a second verdict for the same eat
        checker.eat_verdict(v, p, 6)


def test_a_choice_reaches_the_referee_sealed():
    from zkbluff.games.mind_bluff.referee import open_choice, seal_choice
    from zkbluff.protocol.messages import seal

    key, other = bytes(range(32)), bytes(32)
    o = commit_choice(3, 12345)
    sealed = seal_choice(key, "m", 4, o)
    assert "12345" not in sealed and open_choice(key, "m", 4, sealed) == o
    with pytest.raises(CommitmentMismatch):
        open_choice(other, "m", 4, sealed)     # another seat's channel
    with pytest.raises(CommitmentMismatch):
        open_choice(key, "m", 5, sealed)       # replayed at another line
    with pytest.raises(MalformedInput):
        open_choice(key, "m", 4, seal(key, "m", 4, {"choice": 4, "salt": "1"}))
    with pytest.raises(MalformedInput):
        open_choice(key, "m", 4, seal(key, "m", 4, {"choice": 2, "salt": 1}))
