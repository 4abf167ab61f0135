"""g2_mul_unreduced: k Q without reducing k mod r, for points of the twist outside G2
(hash_to_g2 clears the cofactor 2p - r with it): MCL's double-and-add equals py_ecc."""
import pytest

from zkbluff.curve import B2, G2_GENERATOR, fq2_add, fq2_mul, fq2_sqrt
from zkbluff.field import p, r

COFACTOR = 2 * p - r


def _twist_point_outside_g2(mcl):
    """The first point of the twist with x = (i, 1) that is not in G2."""
    for i in range(1, 100):
        x = (i, 1)
        y = fq2_sqrt(fq2_add(fq2_mul(fq2_mul(x, x), x), B2))
        if y is not None and not mcl.g2_in_subgroup((x, y)):
            return (x, y)
    raise AssertionError("no twist point found")


def test_cofactor_clearing_equals_py_ecc_and_lands_in_g2(mcl, pyecc):
    Q = _twist_point_outside_g2(mcl)
    got = mcl.g2_mul_unreduced(Q, COFACTOR)
    assert got == pyecc.g2_mul_unreduced(Q, COFACTOR)
    assert got is not None and mcl.g2_in_subgroup(got)
    # twin: the ordinary multiplication reduces the scalar and assumes G2: another point
    assert mcl.g2_mul(Q, COFACTOR) != got
    for k in (1, 2, 3, 1 << 200, COFACTOR + 1):
        assert mcl.g2_mul_unreduced(Q, k) == pyecc.g2_mul_unreduced(Q, k)


def test_small_and_edge_scalars(mcl, pyecc):
    Q = mcl.g2_mul(G2_GENERATOR, 11)
    assert mcl.g2_mul_unreduced(Q, 0) is None and mcl.g2_mul_unreduced(None, 5) is None
    assert mcl.g2_mul_unreduced(Q, 1) == Q
    assert mcl.g2_mul_unreduced(Q, r) is None  # in G2 r Q is infinity
    assert mcl.g2_mul_unreduced(Q, r + 5) == mcl.g2_mul(Q, 5)
    assert mcl.g2_mul_unreduced(Q, r + 5) != mcl.g2_mul(Q, 6)
    for be in (mcl, pyecc):
        with pytest.raises(ValueError, match="k >= 0"):
            be.g2_mul_unreduced(Q, -1)
