"""Red team against the G2 subgroup-check cache (codec._G2_CHECKED): after a good point is
kept, no point that merely resembles it passes unchecked: not the same x with another y,
not a non-canonical spelling of its coordinates (x + p, in JSON or bytes), not a point off
the subgroup whose coordinates are the good point's rearranged. The cache is keyed on the
full canonical point, so only the same point skips the backend."""
import pytest

from zkbluff.curve import G2_GENERATOR as H, codec
from zkbluff.curve.codec import p
from zkbluff.errors import MalformedInput
from sample_circuits import non_subgroup_g2


class Spy:
    def __init__(self, be):
        self._be, self.asked = be, 0

    def __getattr__(self, name):
        return getattr(self._be, name)

    def g2_in_subgroup(self, Q):
        self.asked += 1
        return self._be.g2_in_subgroup(Q)


@pytest.fixture
def kept(backend, monkeypatch):
    """A spy backend and a good point already kept in a fresh cache."""
    monkeypatch.setattr(codec, "_G2_CHECKED", set())
    spy = Spy(backend)
    Q = spy.g2_mul(H, 777)
    assert codec.g2_from_json(codec.g2_to_json(Q), "pi_b", False, spy) == Q
    assert Q in codec._G2_CHECKED
    return spy, Q


def test_redteam_a_non_canonical_spelling_of_a_kept_point_is_refused(kept):
    spy, Q = kept
    (x0, x1), (y0, y1) = Q
    for i in range(4):
        coords = [x0, x1, y0, y1]
        coords[i] += p
        if coords[i] >= 2 ** 256:
            continue
        spelled = [[str(coords[0]), str(coords[1])], [str(coords[2]), str(coords[3])], ["1", "0"]]
        with pytest.raises(MalformedInput, match="below p"):
            codec.g2_from_json(spelled, "pi_b", False, spy)
        raw = b"".join(v.to_bytes(32, "big") for v in (coords[1], coords[0], coords[3], coords[2]))
        with pytest.raises(MalformedInput, match="not below p"):
            codec.g2_from_bytes(raw, "pi_b", False, spy)


def test_redteam_the_same_x_with_another_y_is_checked_on_its_own(kept):
    spy, Q = kept
    (x, (y0, y1)) = Q
    for off in [(x, ((y0 + 1) % p, y1)), (x, (y1, y0)), (x, (y0, 0))]:
        with pytest.raises(MalformedInput, match="not on the twist"):
            codec.g2_check(off, "pi_b", False, spy)
    asked = spy.asked
    neg = (x, ((-y0) % p, (-y1) % p))  # -Q: the only other point with this x, and in G2
    assert codec.g2_check(neg, "pi_b", False, spy) == neg
    assert spy.asked == asked + 1  # a separate entry: the backend was asked


def test_redteam_a_point_off_the_subgroup_is_refused_beside_kept_points(kept):
    spy, Q = kept
    bad = non_subgroup_g2(seed=7)
    (bx, by) = bad
    for cand in [bad, (bx, ((-by[0]) % p, (-by[1]) % p)), (bx[::-1], by[::-1])]:  # it, -it, components swapped
        with pytest.raises(MalformedInput, match="not in the order-r subgroup|not on the twist"):
            codec.g2_check(cand, "pi_b", False, spy)
        with pytest.raises(MalformedInput, match="not in the order-r subgroup|not on the twist"):
            codec.g2_from_json(codec.g2_to_json(cand), "pi_b", False, spy)
    assert codec._G2_CHECKED == {Q}


def test_redteam_a_bool_coordinate_cannot_alias_a_kept_int(kept):
    spy, Q = kept
    spelled = codec.g2_to_json(Q)
    spelled[1][1] = True if Q[1][1] == 1 else spelled[1][1]
    spelled[2] = [True, False]  # z = (1, 0) spelled as booleans
    with pytest.raises(MalformedInput, match="decimal string"):
        codec.g2_from_json(spelled, "pi_b", False, spy)
