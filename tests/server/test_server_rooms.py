import pytest

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.server.rooms import (
    CODE_ALPHABET, CODE_LENGTH, RateLimiter, Room, RoomState, new_room_code, normalise_code,
)


def test_room_codes_are_long_random_and_forgiving_to_type():
    codes = {new_room_code() for _ in range(2000)}
    assert len(codes) == 2000 and all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    code = next(iter(codes))
    assert normalise_code(code.lower()[:4] + "-" + code[4:]) == code
    for bad in ("", "ABC", "O0O0O0O0", code + "A", None):
        with pytest.raises(MalformedInput):
            normalise_code(bad)
    taken = {code}
    assert new_room_code(lambda c: c in taken) != code


def test_rate_limiter_refuses_bursts_and_refills_with_time():
    now = [0.0]
    rl = RateLimiter(rate=1.0, burst=3, clock=lambda: now[0])
    assert [rl.allow("a") for _ in range(4)] == [True, True, True, False]
    assert rl.allow("b")  # another client has its own bucket
    now[0] += 1.0
    assert rl.allow("a") and not rl.allow("a")


def test_rate_limiter_forgets_a_closed_connection():
    rl = RateLimiter(rate=0.0, burst=1, clock=lambda: 0.0)
    assert rl.allow("c1") and not rl.allow("c1") and len(rl) == 1
    rl.forget("c1")
    rl.forget("never-seen")  # nothing to drop: no error
    assert len(rl) == 0 and rl.allow("c1")  # a new bucket (the key is a fresh connection's)


def room():
    return Room("ABCDEFGH", "bluffers", owner="k-owner", min_seats=2, max_seats=3)


def test_owner_adds_and_removes_bots_and_starts_with_two():
    r = room()
    r.join("Owner", "k-owner")
    with pytest.raises(IllegalMove, match="at least 2"):
        r.start("k-owner")
    with pytest.raises(IllegalMove, match="only the room owner"):
        r.add_bot("k-other", "Bot")
    seat = r.add_bot("k-owner", "Bot")
    r.join("Guest", "k-guest")
    with pytest.raises(IllegalMove, match="full"):
        r.join("Late", "k-late")
    with pytest.raises(IllegalMove, match="not a bot"):
        r.remove_bot("k-owner", 0)
    r.remove_bot("k-owner", seat)
    with pytest.raises(IllegalMove, match="only the room owner"):
        r.start("k-guest")
    r.start("k-owner")
    assert r.state is RoomState.PLAYING
    with pytest.raises(IllegalMove, match="started"):
        r.add_bot("k-owner", "Bot2")


def test_a_key_takes_one_seat_and_names_are_untrusted():
    r = room()
    r.join("Owner", "k-owner")
    with pytest.raises(IllegalMove, match="already"):
        r.join("Again", "k-owner")
    with pytest.raises(MalformedInput):
        r.join("bad\nname", "k-x")
    assert len(r.members) == 1
