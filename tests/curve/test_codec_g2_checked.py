"""A G2 point that passed the subgroup check is not handed to the backend again in the same
process (a proof's B is checked at decoding and again before pairing); a point that failed
is refused every time and never kept."""
import pytest

from zkbluff.curve import G2_GENERATOR as H, codec
from zkbluff.errors import MalformedInput
from sample_circuits import non_subgroup_g2


class SubgroupSpy:
    """The wrapped backend, counting its subgroup checks."""

    def __init__(self, be):
        self._be, self.asked = be, 0

    def __getattr__(self, name):
        return getattr(self._be, name)

    def g2_in_subgroup(self, Q):
        self.asked += 1
        return self._be.g2_in_subgroup(Q)


@pytest.fixture
def spy(backend, monkeypatch):
    monkeypatch.setattr(codec, "_G2_CHECKED", set())
    return SubgroupSpy(backend)


def test_a_point_that_passed_is_checked_once(spy):
    Q = spy.g2_mul(H, 12345)
    assert codec.g2_check(Q, "pi_b", False, spy) == Q
    assert codec.g2_check(Q, "pi_b", False, spy) == Q
    assert spy.asked == 1
    assert codec.g2_check(spy.g2_mul(H, 54321), "pi_b", False, spy) is not None
    assert spy.asked == 2  # another point: asked


def test_a_point_outside_g2_is_refused_every_time_and_never_kept(spy):
    Q = non_subgroup_g2()
    for _ in range(2):
        with pytest.raises(MalformedInput, match="not in the order-r subgroup"):
            codec.g2_check(Q, "pi_b", False, spy)
    assert spy.asked == 2 and Q not in codec._G2_CHECKED


def test_a_point_off_the_twist_is_refused_every_time(spy):
    (x, y) = H
    off = (x, ((y[0] + 1) % codec.p, y[1]))
    for _ in range(2):
        with pytest.raises(MalformedInput, match="not on the twist"):
            codec.g2_check(off, "pi_b", False, spy)
    assert spy.asked == 0 and not codec._G2_CHECKED


def test_infinity_is_still_refused_where_not_allowed(spy):
    codec.g2_check(H, "pi_b", False, spy)
    with pytest.raises(MalformedInput, match="point at infinity"):
        codec.g2_check(None, "pi_b", False, spy)
    assert codec.g2_check(None, "vk", True, spy) is None


def test_the_kept_points_are_bounded(spy, monkeypatch):
    monkeypatch.setattr(codec, "G2_CHECKED_MAX", 2)
    points = [spy.g2_mul(H, k) for k in (2, 3, 4, 5)]
    for Q in points:
        codec.g2_check(Q, "pi_b", False, spy)
        assert len(codec._G2_CHECKED) <= 2
    assert spy.asked == 4
    codec.g2_check(points[-1], "pi_b", False, spy)  # the newest is kept
    assert spy.asked == 4
