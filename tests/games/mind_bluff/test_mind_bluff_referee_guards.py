"""Mind Bluff's referee (games/mind_bluff/referee.py), its checks each alone and without
proofs (issue 21): the field and channel-key formats, the sealed channel's binding and
payload, which proof each line owes and what it pins, the ledger it keeps, the referee's
secrets and its own moves.

The table's loop is driven natively here: a proof's outputs (the commitments it
discloses) are computed with the native Poseidon commitment, which is what the statement
proves (tests/games/mind_bluff/test_mind_bluff_engine.py runs the same with real proofs)."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.games.mind_bluff.referee import (
    ALL_DONE_TARGET, CHOICE, COUNT_IS, DRAW, RANGE_CLAIM, STEP, RefereeSecrets, VerdictChecker, _box_line, _decimal,
    canonical_json, check_channel_key, commit_choice, entropy_field, game_truth, honest_claim_inputs, open_choice,
    range_inputs, referee_move, reveal_of, seal_choice,
)
from zkbluff.games.mind_bluff.review import ChoiceOpening
from zkbluff.games.mind_bluff.rules import (
    AllDone, AllDoneVerdict, Claim, Doubt, DoubtVerdict, Eat, EatVerdict, MindBluffRules, Phase, Reveal,
    RevealEntropy, StartGame,
)
from zkbluff.protocol.commit_reveal import commit_entropy
from zkbluff.protocol.entropy import channel_key, x25519_keypair
from zkbluff.protocol.messages import seal

MATCH = "m-guards"


def exactly(text):
    return "^" + re.escape(text) + "$"


# ---------------------------------------------------------------- formats

def test_entropy_field_takes_64_lowercase_hex_digits_reduced_mod_r():
    assert entropy_field("00" * 31 + "07") == 7
    assert entropy_field("ff" * 32) == int("ff" * 32, 16) % r and int("ff" * 32, 16) >= r
    for bad in ("0" * 63, "0" * 65, "AB" * 32, "g" + "0" * 63, None, 7):
        with pytest.raises(MalformedInput, match="^entropy: expected 64 lowercase hex digits, got "):
            entropy_field(bad)


def test_decimal_takes_a_decimal_string_below_r():
    assert _decimal("0", "x") == 0 and _decimal(str(r - 1), "x") == r - 1
    assert _decimal("0" * 78, "x") == 0
    for bad in (str(r), "0" * 79, "-1", "1.5", "", " 1", 5, None):
        with pytest.raises(MalformedInput, match="^salt: expected a decimal string below r, got "):
            _decimal(bad, "salt")


def test_canonical_json_is_sorted_compact_and_keeps_unicode():
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'


def test_a_channel_key_is_an_x25519_point_in_64_lowercase_hex_digits():
    _, public = x25519_keypair()
    assert check_channel_key(public.hex()) == public
    for bad in (public.hex().upper(), public.hex()[:-2], public.hex() + "00", None, 5, "zz" * 32):
        with pytest.raises(MalformedInput, match="^channel: expected 64 lowercase hex digits, got "):
            check_channel_key(bad)
    with pytest.raises(MalformedInput, match=exactly("channel: 0000000000000000… is not an X25519 public key")):
        check_channel_key("00" * 32)  # a small-order point the curve refuses


# ---------------------------------------------------------------- the sealed channel

@pytest.fixture(scope="module")
def secrets():
    return RefereeSecrets.fresh()


def test_a_sealed_choice_opens_only_for_its_match_seat_game_and_turn(secrets):
    opening = commit_choice(2, 12345)
    sealed = seal_choice(secrets.channel_public, MATCH, 1, 2, 7, opening)
    eph, box = sealed.split(".")
    assert len(eph) == 64 and int(box, 16) >= 0
    assert open_choice(secrets.channel_key, MATCH, 1, 2, 7, sealed) == ChoiceOpening(2, 12345)
    assert _box_line(2, 7) == 2007 and _box_line(1, 999) == 1999
    for match_id, seat, game, turn in ((MATCH + "x", 1, 2, 7), (MATCH, 0, 2, 7), (MATCH, 1, 3, 7), (MATCH, 1, 2, 8)):
        with pytest.raises(CommitmentMismatch):
            open_choice(secrets.channel_key, match_id, seat, game, turn, sealed)
    for bad in (5, eph + box, sealed + ".00", ""):
        with pytest.raises(MalformedInput, match=exactly("sealed choice: expected 'ephemeral key hex.box hex'")):
            open_choice(secrets.channel_key, MATCH, 1, 2, 7, bad)


def _sealed_payload(secrets, payload, seat=0, game=1, turn=1):
    own, own_public = x25519_keypair()
    key = channel_key(own, bytes.fromhex(secrets.channel_public), MATCH, seat)
    return own_public.hex() + "." + seal(key, MATCH, _box_line(game, turn), payload)


def test_a_sealed_payload_of_the_wrong_shape_is_malformed(secrets):
    ok = _sealed_payload(secrets, {"choice": 3, "salt": "9"})
    assert open_choice(secrets.channel_key, MATCH, 0, 1, 1, ok) == ChoiceOpening(3, 9)
    for payload in ({"choice": 3}, {"choice": 3, "salt": "9", "x": 1}, {"salt": "9"}):
        with pytest.raises(MalformedInput, match=exactly("sealed choice: expected {choice, salt}")):
            open_choice(secrets.channel_key, MATCH, 0, 1, 1, _sealed_payload(secrets, payload))
    with pytest.raises(MalformedInput, match="eat: the choice must be 1..3, got 4"):
        open_choice(secrets.channel_key, MATCH, 0, 1, 1, _sealed_payload(secrets, {"choice": 4, "salt": "9"}))
    with pytest.raises(MalformedInput, match="^sealed choice salt: expected a decimal string"):
        open_choice(secrets.channel_key, MATCH, 0, 1, 1, _sealed_payload(secrets, {"choice": 1, "salt": 9}))


def test_a_choice_is_1_to_3_and_its_proof_inputs_disclose_only_what_they_say():
    o = commit_choice(3, 77)
    assert o == ChoiceOpening(3, 77) and commit_choice(1).salt != commit_choice(1).salt
    with pytest.raises(MalformedInput):
        commit_choice(0)
    assert range_inputs(o) == {"choice": 3, "choice_salt": 77, "claim": RANGE_CLAIM, "verdict": 0} and RANGE_CLAIM == 0
    assert honest_claim_inputs(o, 3) == {"choice": 3, "choice_salt": 77, "claim": 3, "verdict": 1}


# ---------------------------------------------------------------- the referee's secrets

def test_the_referee_secrets_round_trip_and_refuse_a_malformed_file(secrets):
    assert RefereeSecrets.from_json(json.loads(json.dumps(secrets.to_json()))) == secrets
    assert secrets.commitment == commit(secrets.entropy, secrets.entropy_salt)
    assert check_channel_key(secrets.channel_public) == bytes.fromhex(secrets.channel_public)
    salts = {secrets.count_salt(g, k) for g in (1, 2, 3) for k in range(4)}
    assert len(salts) == 12 and all(0 <= s < r for s in salts)
    assert secrets.count_salt(2, 1) == RefereeSecrets.from_json(secrets.to_json()).count_salt(2, 1)
    other = RefereeSecrets(secrets.entropy, secrets.entropy_salt, "00" * 32, secrets.channel_der)
    assert other.count_salt(1, 0) != secrets.count_salt(1, 0)  # from the seed
    d = secrets.to_json()
    for change in (lambda x: x.pop("saltSeed"), lambda x: x.pop("entropy"), lambda x: x.update(entropySalt="-1")):
        bad = dict(d)
        change(bad)
        with pytest.raises(MalformedInput):
            RefereeSecrets.from_json(bad)
    with pytest.raises(MalformedInput, match="^referee secrets: "):
        RefereeSecrets.from_json(None)  # type: ignore[arg-type]


def test_the_referee_secrets_are_fixed_and_the_salt_seed_has_256_bits(secrets):
    """Everything the referee proves from follows from these and the table: they never change
    after the start, and the count salts come from a seed of at least 256 bits."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        secrets.salt_seed = "00" * 32  # type: ignore[misc]
    for s in (secrets, RefereeSecrets.fresh()):
        assert len(bytes.fromhex(s.salt_seed)) >= 32 and 0 <= s.entropy < r and 0 <= s.entropy_salt < r


# ---------------------------------------------------------------- a native table: the referee's moves and the ledger

ENTROPIES = ("11" * 32, "22" * 32)


class NativeTable:
    """The engine's loop for Mind Bluff without proofs: the referee's moves from
    ``referee_move``, each line's demands from the ledger, and the outputs a proof would
    disclose computed natively."""

    def __init__(self, secrets):
        self.secrets = secrets
        self.rules = MindBluffRules((False, False))
        self.ledger = VerdictChecker(tuple(commit_entropy(e) for e in ENTROPIES))
        self.openings: list[ChoiceOpening] = []

    def referee(self):
        move = referee_move(self.secrets, self.rules, self.ledger, MATCH)
        assert move is not None
        return self.line(None, move.action, move.proofs)

    def line(self, seat, action, inputs=()):
        demands = self.ledger.expect(self.rules, seat, action)
        publics = [self.outputs(d.statement, dict(i)) for d, i in zip(demands, inputs)]
        for d, p in zip(demands, publics):
            for name, value in d.pinned.items():
                assert p[name] == value, (d.statement, name)
        self.rules.apply(seat, action)
        self.ledger.record(seat, action, publics)
        return demands, publics

    @staticmethod
    def outputs(statement, i):
        if statement == COUNT_IS:
            return {"commitment": commit(i["count"], i["salt"]), "target": i["target"],
                    "equal": int(i["count"] == i["target"])}
        if statement == STEP:
            new = i["old_count"] - i["choice"]
            return {"old_commitment": commit(i["old_count"], i["old_salt"]),
                    "new_commitment": commit(max(new, 0), i["new_salt"]),
                    "choice_commitment": commit(i["choice"], i["choice_salt"]), "ate_last": int(new <= 0)}
        if statement == CHOICE:
            return {"choice_commitment": commit(i["choice"], i["choice_salt"]), "claim": i["claim"],
                    "verdict": int(i["choice"] == i["claim"])}
        raise AssertionError(statement)

    def eat(self, seat, choice, salt=None):
        o = commit_choice(choice, salt)
        self.openings.append(o)
        sealed = seal_choice(self.secrets.channel_public, MATCH, seat, self.rules.game, self.rules.turn + 1, o)
        return self.line(seat, Eat(sealed), [range_inputs(o)])


@pytest.fixture
def native(secrets):
    t = NativeTable(secrets)
    demands, publics = t.referee()  # game 1 starts
    assert [d.statement for d in demands] == [COUNT_IS] and demands[0].pinned == {"target": 30, "equal": 1}
    return t


def test_no_game_no_commitment(secrets):
    ledger = VerdictChecker()
    with pytest.raises(IllegalMove, match=exactly("no game has started")):
        ledger.current
    with pytest.raises(IllegalMove, match=exactly("game 3: the draw needs both seats' revealed entropies")):
        ledger.seat_entropy_fields()


def test_game_one_publishes_the_draw_commitment_and_channel_and_later_games_do_not(native, secrets):
    t = native
    assert t.ledger.draw_commitment == secrets.commitment
    assert t.ledger.channel == secrets.channel_public
    g = t.ledger.current
    assert g.game == 1 and g.start_commitment == commit(30, secrets.count_salt(1, 0)) and t.ledger.sealed == [[]]
    assert t.ledger.count_commitment() == g.start_commitment  # before any eat: the start's
    expect = t.ledger.expect_start
    with pytest.raises(IllegalMove, match=exactly("start_game: game 2's line carries no draw commitment or channel "
                                                  "(published once, on game 1's)")):
        expect(StartGame(2, 1, "5", ""))
    with pytest.raises(IllegalMove, match="game 2's line carries no draw commitment"):
        expect(StartGame(2, 1, "", secrets.channel_public))
    assert expect(StartGame(2, 1)).statement == COUNT_IS
    with pytest.raises(MalformedInput, match="the referee's draw commitment"):
        expect(StartGame(1, 0, "x", secrets.channel_public))
    with pytest.raises(MalformedInput, match="^channel: "):
        expect(StartGame(1, 0, "5", "00" * 32))


def test_an_eat_must_carry_its_choice_sealed_in_the_right_shape(native):
    t = native
    good = "ab" * 32 + "." + "cd" * 20
    assert t.ledger.expect(t.rules, 0, Eat(good))[0].pinned == {"claim": RANGE_CLAIM, "verdict": 0}
    with pytest.raises(MalformedInput, match=exactly("eat: the choice must reach the referee sealed (field 'sealed')")):
        t.ledger.expect(t.rules, 0, Eat(""))
    for bad in ("ab" * 31 + "." + "cd" * 20, "ab" * 33 + "." + "cd", "ab" * 32 + ".", "ab" * 32 + "." + "cde",
                "ab" * 32 + "." + "cd.cd", "AB" * 32 + "." + "cd", "ab" * 32 + "." + "CD", "ab" * 32 + "cd" * 2,
                "xy" * 32 + ".cd"):
        with pytest.raises(MalformedInput, match="^eat: sealed must be 'ephemeral key"):
            t.ledger.expect(t.rules, 0, Eat(bad))


def test_each_verdict_pins_the_commitments_the_table_holds(native, secrets):
    t = native
    with pytest.raises(IllegalMove, match=exactly("no choice is waiting for this verdict")):
        t.ledger.expect(t.rules, None, EatVerdict(False))
    t.eat(0, 3, 5)
    g = t.ledger.current
    assert g.choice_commitments == [commit(3, 5)] and len(t.ledger.sealed[-1]) == 1
    with pytest.raises(IllegalMove, match=exactly("no settled eat to speak of")):
        t.ledger._last_choice(settled=True)
    demands, publics = t.referee()  # the eat verdict: survived
    assert demands[0].statement == STEP and demands[0].pinned == {
        "old_commitment": g.start_commitment, "choice_commitment": commit(3, 5), "ate_last": 0}
    assert g.count_commitments == [commit(27, secrets.count_salt(1, 1))] == [publics[0]["new_commitment"]]
    assert t.ledger.count_commitment() == g.count_commitments[-1]
    with pytest.raises(IllegalMove, match=exactly("no choice is waiting for this verdict")):
        t.ledger._last_choice(settled=False)
    # a claim proven equal pins the settled choice; an unproven one owes nothing
    assert t.ledger.expect(t.rules, 0, Claim(3, False)) == []
    d = t.ledger.expect(t.rules, 0, Claim(2, True))[0]
    assert d.statement == CHOICE and d.pinned == {"choice_commitment": commit(3, 5), "claim": 2, "verdict": 1}
    t.line(0, Claim(1, False))
    t.line(1, Doubt())
    demands, _ = t.referee()  # the doubt verdict: BLUFF (ate 3, claimed 1)
    assert demands[0].statement == CHOICE
    assert demands[0].pinned == {"choice_commitment": commit(3, 5), "claim": 1, "verdict": 0}
    # All done: the count commitment, target 1
    t.line(1, AllDone())
    d = t.ledger.expect(t.rules, None, AllDoneVerdict(False))[0]
    assert d.statement == COUNT_IS and ALL_DONE_TARGET == 1
    assert d.pinned == {"commitment": t.ledger.count_commitment(), "target": 1, "equal": 0}
    assert t.ledger.expect(t.rules, None, AllDoneVerdict(True))[0].pinned["equal"] == 1


def test_the_referee_moves_follow_the_truth(native, secrets):
    t = native
    assert referee_move(secrets, t.rules, t.ledger, MATCH) is None  # a seat is to move
    t.eat(0, 2, 8)
    move = referee_move(secrets, t.rules, t.ledger, MATCH)
    assert move.action == EatVerdict(False) and move.proofs == ({
        "old_count": 30, "old_salt": secrets.count_salt(1, 0), "choice": 2, "choice_salt": 8,
        "new_salt": secrets.count_salt(1, 1)},)
    t.referee()
    t.line(0, Claim(2, False))
    t.line(1, Doubt())
    move = referee_move(secrets, t.rules, t.ledger, MATCH)
    assert move.action == DoubtVerdict(True) and move.proofs == ({"choice": 2, "choice_salt": 8, "claim": 2},)
    t.referee()
    t.line(1, AllDone())
    move = referee_move(secrets, t.rules, t.ledger, MATCH)
    assert move.action == AllDoneVerdict(False)
    assert move.proofs == ({"count": 28, "salt": secrets.count_salt(1, 1), "target": 1},)
    t.referee()
    assert t.rules.phase == Phase.REVEAL
    move = referee_move(secrets, t.rules, t.ledger, MATCH)
    reveal = move.action
    assert isinstance(reveal, Reveal) and reveal.game == 1 and reveal.start == 30
    assert reveal.count_salts == (str(secrets.count_salt(1, 0)), str(secrets.count_salt(1, 1)))
    assert reveal.choices == (2,) and reveal.choice_salts == ("8",)
    assert reveal.referee_entropy == "" and reveal.referee_salt == ""  # only game 3 opens the draw
    t.line(None, reveal)
    assert t.ledger.reveals[-1].game == 1 and t.ledger.reveals[-1].referee_entropy is None


def test_a_sealed_choice_that_does_not_open_its_posted_commitment_is_refused(native, secrets):
    t = native
    t.eat(0, 2, 8)
    t.ledger.current.choice_commitments[-1] = commit(3, 8)  # posted by a proof of another choice
    with pytest.raises(CommitmentMismatch, match=exactly("eat at turn 1: the sealed choice does not open the "
                                                         "posted commitment")):
        game_truth(secrets, t.rules, t.ledger, MATCH)


def test_a_reveal_that_is_not_the_truth_is_refused(native, secrets):
    t = native
    t.line(0, AllDone())
    t.referee()  # All done at 30: false
    honest = referee_move(secrets, t.rules, t.ledger, MATCH).action
    assert t.ledger.check_reveal_line(t.rules.games[-1], honest).start == 30
    with pytest.raises(IllegalMove, match=exactly("reveal: the review of game 1 is not the one its truth gives")):
        t.ledger.expect(t.rules, None, Reveal(**{**honest.__dict__, "review": honest.review + " "}))
    with pytest.raises(IllegalMove, match="^reveal: "):
        t.ledger.expect(t.rules, None, Reveal(**{**honest.__dict__, "start": 31}))
    with pytest.raises(MalformedInput, match=exactly("reveal: 1 choices but 0 salts")):
        reveal_of(Reveal(**{**honest.__dict__, "choices": (1,)}))
    assert t.ledger.expect(t.rules, None, honest) == []


def _to_game_three(t):
    for seat in (0, 1):  # game 1: seat 0 calls All done at once; game 2: seat 1
        t.line(seat, AllDone())
        t.referee()
        t.line(None, referee_move(t.secrets, t.rules, t.ledger, MATCH).action)  # the reveal
        if t.rules.phase != Phase.DRAW:
            t.referee()  # the next game's start
    assert t.rules.phase == Phase.DRAW


def test_game_three_draws_from_both_revealed_entropies(native, secrets):
    t = native
    _to_game_three(t)
    seat = t.rules.to_move
    with pytest.raises(CommitmentMismatch, match=exactly(f"reveal_entropy: seat {seat}'s entropy does not open its "
                                                         "commitment in the header")):
        t.ledger.expect(t.rules, seat, RevealEntropy(ENTROPIES[1 - seat]))
    with pytest.raises(MalformedInput, match=exactly(f"entropy: expected 64 lowercase hex digits, got {'AB' * 32!r}")):
        t.ledger.expect(t.rules, seat, RevealEntropy("AB" * 32))  # the message says what it got
    t.line(seat, RevealEntropy(ENTROPIES[seat]))
    with pytest.raises(IllegalMove, match="the draw needs both"):
        t.ledger.seat_entropy_fields()
    t.line(t.rules.to_move, RevealEntropy(ENTROPIES[t.rules.to_move]))
    fields = (entropy_field(ENTROPIES[0]), entropy_field(ENTROPIES[1]))
    assert t.ledger.seat_entropy_fields() == fields
    move = referee_move(secrets, t.rules, t.ledger, MATCH)
    from zkbluff.statements.values import start_draw_native
    start, coin = start_draw_native(secrets.entropy, fields)
    assert move.action == StartGame(3, coin) and move.proofs == ({
        "referee_entropy": secrets.entropy, "referee_salt": secrets.entropy_salt,
        "start_salt": secrets.count_salt(3, 0), "entropy0": fields[0], "entropy1": fields[1]},)
    d = t.ledger.expect(t.rules, None, move.action)[0]
    assert d.statement == DRAW and d.pinned == {"referee_commitment": secrets.commitment, "entropy0": fields[0],
                                                "entropy1": fields[1], "coin": coin}
    start_commitment = commit(start, secrets.count_salt(3, 0))
    t.rules.apply(None, move.action)
    t.ledger.record(None, move.action, [{"start_commitment": start_commitment}])
    g = t.ledger.current
    assert (g.game, g.start_commitment, g.referee_commitment, g.seat_entropies) == \
        (3, start_commitment, secrets.commitment, fields)
    # game 3's truth starts from the draw, and its reveal opens the referee's entropy
    t.eat(coin, 1, 4)
    truth = game_truth(secrets, t.rules, t.ledger, MATCH)
    assert truth.start == start and truth.before == [start] and truth.remaining == start - 1
    assert referee_move(secrets, t.rules, t.ledger, MATCH).proofs[0]["old_count"] == start
