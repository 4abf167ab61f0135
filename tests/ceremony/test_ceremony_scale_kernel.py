"""A phase-2 contribution through the point kernel (MclBackend.g1_scale, what
zkey_contribute uses) writes the same .zkey bytes as through MCL's per-point
multiplication, for fixed edge secrets, and the result verifies; L and H moved by
another secret than delta's are rejected."""
from __future__ import annotations

from dataclasses import replace

import pytest

from zkbluff.ceremony.binfile import ContributionParams
from zkbluff.ceremony.phase2 import _apply, zkey_new, zkey_verify, zkey_verify_fast
from zkbluff.ceremony.ptau import ptau_contribute, ptau_new, ptau_prepare
from zkbluff.circuit import build
from zkbluff.curve import G1_GENERATOR
from zkbluff.errors import InvalidCeremony
from zkbluff.field import r

mb = pytest.importorskip("zkbluff.curve.mcl_backend")
pn = pytest.importorskip("zkbluff._points_native")


def chain(cs, inputs):
    """``x_(i+1) = x_i (x_i + i)``, 20 steps: 21 constraints, a 2^5 domain (53 points to move)."""
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and 3)
    for i in range(20):
        x = cs.mul(x, x + i, f"m{i}")
    cs.enforce_equal(x, out, "out")


def _out() -> int:
    x = 3
    for i in range(20):
        x = x * (x + i) % r
    return x


@pytest.fixture(scope="module")
def setting(mcl):
    system = build(chain, {"out": _out()})[0]
    pt = ptau_prepare(ptau_contribute(ptau_new(5), "p1", mcl), mcl)
    return system, pt, zkey_new(system, pt, mcl)


def _contribute(init, d, mcl, generic: bool, monkeypatch):
    with monkeypatch.context() as m:
        if generic:
            m.setattr(mb, "SCALE_MIN", 1 << 40)
        return _apply(init, d, mcl.g1_mul(G1_GENERATOR, 7), ContributionParams(0, "edge"), mcl, None)


@pytest.mark.skipif(not pn.VECTOR, reason="this CPU has no AVX-512 IFMA: g1_scale is MCL's path itself")
@pytest.mark.parametrize("d", [1, 2, r - 1, 0x2545F4914F6CDD1D << 190])
def test_kernel_contribution_is_byte_identical_and_verifies(setting, mcl, monkeypatch, d):
    system, pt, init = setting
    assert len(init.pk.l_query) + len(init.pk.h_query) >= mb.SCALE_MIN  # the kernel runs
    fast = _contribute(init, d, mcl, False, monkeypatch)
    slow = _contribute(init, d, mcl, True, monkeypatch)
    assert fast.to_bytes() == slow.to_bytes()
    assert len(zkey_verify(fast, system, pt, mcl, init=init)) == 1
    assert len(zkey_verify_fast(fast, system, pt, mcl)) == 1


def test_points_moved_by_another_secret_are_rejected(setting, mcl, monkeypatch):
    system, pt, init = setting
    good = _contribute(init, 5, mcl, False, monkeypatch)
    other = _contribute(init, 6, mcl, False, monkeypatch)
    for field in ("l_query", "h_query"):
        bad = replace(good, pk=replace(good.pk, **{field: getattr(other.pk, field)}))
        with pytest.raises(InvalidCeremony, match="divided by delta"):
            zkey_verify(bad, system, pt, mcl, init=init)
        with pytest.raises(InvalidCeremony, match="divided by delta"):
            zkey_verify_fast(bad, system, pt, mcl)
