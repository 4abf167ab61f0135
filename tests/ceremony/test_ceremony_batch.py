"""The curve backends' batched operations a ceremony uses, each against its definition
and the two backends against each other."""
import secrets

import pytest

from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, ifft_by_batches
from zkbluff.errors import MalformedInput
from zkbluff.field import EvaluationDomain, r


def test_batch_mul_and_add_match_definition(backend, mcl):
    ks = [secrets.randbelow(r) for _ in range(6)] + [0, 1, r - 1]
    P = mcl.g1_mul_many(G1_GENERATOR, [k + 7 for k in ks]) + [None]
    ks = ks + [5]
    got = backend.g1_batch_mul(P, ks)
    assert got == [mcl.g1_mul(a, k) for a, k in zip(P, ks)]
    assert got[6] is None and got[7] == P[7] and got[9] is None
    assert backend.g1_batch_add(P, got) == [mcl.g1_add(a, b) for a, b in zip(P, got)]
    Q = mcl.g2_mul_many(G2_GENERATOR, [3, 5, 11])
    assert backend.g2_batch_mul(Q, [2, 0, r - 1]) == [mcl.g2_mul(Q[0], 2), None, mcl.g2_neg(Q[2])]
    assert backend.g2_batch_add(Q, Q) == [mcl.g2_mul(x, 2) for x in Q]
    with pytest.raises(MalformedInput):
        backend.g1_batch_mul(P, ks[:-1])


@pytest.mark.parametrize("log", [0, 1, 3])
def test_group_ifft_gives_the_lagrange_basis(backend, mcl, log):
    """From [x^i] the inverse DFT gives [L_j(x)], for the field's own domain."""
    n = 1 << log
    x = secrets.randbelow(r)
    powers = [pow(x, i, r) for i in range(n)]
    lag = EvaluationDomain(log).lagrange_at(x)
    assert backend.g1_ifft(mcl.g1_mul_many(G1_GENERATOR, powers)) == mcl.g1_mul_many(G1_GENERATOR, lag)
    assert backend.g2_ifft(mcl.g2_mul_many(G2_GENERATOR, powers)) == mcl.g2_mul_many(G2_GENERATOR, lag)
    wrong = mcl.g1_mul_many(G1_GENERATOR, [(lag[0] + 1) % r] + lag[1:])
    assert backend.g1_ifft(mcl.g1_mul_many(G1_GENERATOR, powers)) != wrong


def test_native_ifft_equals_reference(mcl):
    pts = mcl.g1_mul_many(G1_GENERATOR, [secrets.randbelow(r) for _ in range(16)])
    pts[5] = None
    assert mcl.g1_ifft(pts) == ifft_by_batches(mcl.g1_batch_mul, mcl.g1_batch_add, mcl.g1_neg, pts)
    with pytest.raises(MalformedInput):
        mcl.g1_ifft(pts[:6])


def test_msm_many_matches_one_msm_per_group(backend, mcl):
    ks = [secrets.randbelow(r) for _ in range(9)]
    P = mcl.g1_mul_many(G1_GENERATOR, [k + 3 for k in ks])
    Q = mcl.g2_mul_many(G2_GENERATOR, [5, 7, 11])
    groups = [(P[:4], ks[:4]), ([], []), ([P[4]], [ks[4]]), (P[5:], [0, 1, r - 1, 2])]
    want = [mcl.g1_msm(p, k) for p, k in groups]
    assert backend.g1_msm_many(groups) == want and want[1] is None
    assert backend.g2_msm_many([(Q, [1, 2, 3]), (Q[:1], [0])]) == [mcl.g2_msm(Q, [1, 2, 3]), None]
    with pytest.raises(MalformedInput):
        backend.g1_msm_many([(P[:2], ks[:3])])


def test_batch_ops_work_in_a_forked_child(mcl):
    """A server that forks after using the thread pool: the child makes its own."""
    import os

    pts = mcl.g1_mul_many(G1_GENERATOR, list(range(1, 300)))
    want = mcl.g1_batch_mul(pts, list(range(299)))
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        os._exit(0 if mcl.g1_batch_mul(pts, list(range(299))) == want else 1)
    assert os.waitpid(pid, 0)[1] == 0
