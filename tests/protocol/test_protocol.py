import pytest

from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.games.decks import BLUFFERS_20, STANDARD_52
from zkbluff.games.proof_or_bluff.rules import rank_mask
from zkbluff.protocol.commit_reveal import (
    SeatSecrets, check_reveal, combine_entropies, commit_entropy, hand_salt,
)
from zkbluff.protocol.context import context_value
from zkbluff.protocol.messages import open_sealed, seal, seat_key


def test_sealed_messages():
    key = seat_key("secret", 1)
    box = seal(key, "m1", 5, {"hand": "12345", "salt": "9"})
    assert open_sealed(key, "m1", 5, box) == {"hand": "12345", "salt": "9"}
    assert seal(key, "m1", 5, {"a": 1}) != seal(key, "m1", 5, {"a": 1})  # fresh nonce
    for k, m, line in ((seat_key("secret", 0), "m1", 5), (key, "m2", 5), (key, "m1", 6)):
        with pytest.raises(CommitmentMismatch):
            open_sealed(k, m, line, box)
    flipped = box[:-2] + ("00" if box[-2:] != "00" else "01")
    with pytest.raises(CommitmentMismatch):
        open_sealed(key, "m1", 5, flipped)
    with pytest.raises(MalformedInput):
        open_sealed(key, "m1", 5, "zz")


def test_commit_reveal():
    a, b = SeatSecrets.fresh(), SeatSecrets.fresh()
    check_reveal(a.commitments(), {"entropy": a.entropy, "saltSeed": a.salt_seed}, "seat 0")
    with pytest.raises(CommitmentMismatch):
        check_reveal(a.commitments(), {"entropy": b.entropy, "saltSeed": a.salt_seed}, "seat 0")
    with pytest.raises(MalformedInput):
        commit_entropy("not hex")
    assert combine_entropies([a.entropy, b.entropy]) != combine_entropies([b.entropy, a.entropy])
    assert hand_salt(a.salt_seed, 1) != hand_salt(a.salt_seed, 2)


def test_context_binds_match_line_and_previous_hash():
    base = context_value("m", 3, "ab")
    assert base != context_value("n", 3, "ab") and base != context_value("m", 4, "ab")
    assert base != context_value("m", 3, "ac")


def test_decks():
    assert STANDARD_52.rank_mask(11) == rank_mask(11)
    kings = BLUFFERS_20.rank_mask(0)
    assert [c for c in range(20) if kings >> c & 1] == [0, 1, 2, 3, 4, 5, 18, 19]  # jokers count as Kings
    assert bin(BLUFFERS_20.rank_mask(2)).count("1") == 8
    with pytest.raises(ValueError):
        BLUFFERS_20.rank_mask(3)
