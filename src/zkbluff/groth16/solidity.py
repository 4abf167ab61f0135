"""A Groth16 verifier contract in Solidity for one verifying key, and the calldata of a proof.

The contract has snarkjs's ABI (``verifyProof(uint256[2] a, uint256[2][2] b, uint256[2] c,
uint256[N] input) returns (bool)``, G2 coordinates imaginary part first), so a caller can
swap one verifier for the other. It checks ``e(-A, B) e(alpha, beta) e(vk_x, gamma)
e(C, delta) = 1`` with the EVM's BN254 precompiles (0x06 add, 0x07 scalar multiplication,
0x08 pairing check), ``vk_x = IC[0] + sum input[i] IC[i]``.

It never reverts on a proof or an input: it returns **false** for every public input not
below r (the scalar precompile would reduce it mod r, so an unchecked ``x + r`` would pass
for ``x``), for a coordinate not below q (A's y is checked before it is negated; the pairing
precompile fails on any other), for a point off its curve or a G2 point outside its subgroup
(the precompiles fail on those, and the failure is returned as false), and for a proof
that does not verify. A point at infinity (all zero words) is the identity to the
precompiles: a proof with one verifies only if the rest of the equation holds on its own,
which nobody can arrange without the key's secrets, so it gets no check of its own (zkbluff's
Python verifier refuses it as malformed; both reject). A public input of 0 or 1 costs no scalar multiplication (0 adds
nothing, 1 adds IC[i] itself): the inputs are public, so the saving leaks nothing.

The generator is zkbluff's own; only the facts above (addresses, encodings, ABI) are
shared with snarkjs's ``zkey export solidityverifier``.
"""
from __future__ import annotations

from typing import Sequence

from zkbluff.curve import G1Affine, G2Affine
from zkbluff.errors import MalformedInput
from zkbluff.field import p, r
from zkbluff.groth16.keys import Proof, VerifyingKey

PRAGMA = ">=0.8.4 <0.9.0"


def _g1_words(P: G1Affine, what: str) -> tuple[int, int]:
    if P is None:
        raise MalformedInput(f"{what}: the point at infinity has no contract encoding here")
    return P


def _g2_words(Q: G2Affine, what: str) -> tuple[int, int, int, int]:
    """The precompile's order: x imaginary, x real, y imaginary, y real."""
    if Q is None:
        raise MalformedInput(f"{what}: the point at infinity has no contract encoding here")
    (x0, x1), (y0, y1) = Q
    return x1, x0, y1, y0


def _constants(vk: VerifyingKey) -> list[str]:
    lines = [f"    uint256 internal constant R = {r};", f"    uint256 internal constant Q = {p};"]
    for name, P in [("ALPHA", vk.alpha_g1)]:
        x, y = _g1_words(P, name)
        lines += [f"    uint256 internal constant {name}_X = {x};", f"    uint256 internal constant {name}_Y = {y};"]
    for name, Q2 in [("BETA", vk.beta_g2), ("GAMMA", vk.gamma_g2), ("DELTA", vk.delta_g2)]:
        words = _g2_words(Q2, name)
        for suffix, w in zip(("X_IM", "X_RE", "Y_IM", "Y_RE"), words):
            lines.append(f"    uint256 internal constant {name}_{suffix} = {w};")
    for i, P in enumerate(vk.ic):
        x, y = (0, 0) if P is None else P  # an IC point at infinity adds nothing: (0, 0) on the EVM
        lines += [f"    uint256 internal constant IC{i}_X = {x};", f"    uint256 internal constant IC{i}_Y = {y};"]
    return lines


_HELPERS = """
    /// buf[0..1] += s * (x, y) through the precompiles, in place (buf[2..4] is scratch:
    /// no memory is allocated per input); false if a precompile fails
    function _accumulate(uint256[5] memory buf, uint256 x, uint256 y, uint256 s) private view returns (bool ok) {
        if (s == 0) return true;
        assembly {
            let scratch := add(buf, 0x40)
            mstore(scratch, x)
            mstore(add(buf, 0x60), y)
            mstore(add(buf, 0x80), s)
            ok := 1
            if gt(s, 1) { ok := staticcall(gas(), 0x07, scratch, 0x60, scratch, 0x40) }
            if ok { ok := staticcall(gas(), 0x06, buf, 0x80, buf, 0x40) }
        }
    }
"""

_PAIRING_WORDS = (
    "a[0]", "(Q - a[1]) % Q", "b[0][0]", "b[0][1]", "b[1][0]", "b[1][1]",
    "ALPHA_X", "ALPHA_Y", "BETA_X_IM", "BETA_X_RE", "BETA_Y_IM", "BETA_Y_RE",
    "vkx[0]", "vkx[1]", "GAMMA_X_IM", "GAMMA_X_RE", "GAMMA_Y_IM", "GAMMA_Y_RE",
    "c[0]", "c[1]", "DELTA_X_IM", "DELTA_X_RE", "DELTA_Y_IM", "DELTA_Y_RE",
)


def _pairing_function() -> list[str]:
    """e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) == 1 through 0x08."""
    return [
        "",
        "    function _pairingHolds(uint256[2] calldata a, uint256[2][2] calldata b, uint256[2] calldata c,",
        "                           uint256[5] memory vkx) private view returns (bool ok) {",
        f"        uint256[{len(_PAIRING_WORDS)}] memory w;",
        *(f"        w[{i}] = {e};" for i, e in enumerate(_PAIRING_WORDS)),
        "        uint256[1] memory result;",
        f"        assembly {{ ok := staticcall(gas(), 0x08, w, {32 * len(_PAIRING_WORDS):#x}, result, 0x20) }}",
        "        return ok && result[0] == 1;",
        "    }",
    ]


def _accumulate_lines(n_public: int) -> list[str]:
    lines = ["        uint256[5] memory vkx;", "        vkx[0] = IC0_X;", "        vkx[1] = IC0_Y;"]
    for i in range(n_public):
        lines += [f"        if (input[{i}] >= R || !_accumulate(vkx, IC{i + 1}_X, IC{i + 1}_Y, input[{i}])) return false;"]
    return lines


def solidity_verifier(vk: VerifyingKey, statement: str, contract: str = "ZkbluffVerifier") -> str:
    """Solidity source of a verifier contract named ``contract`` for ``vk``."""
    if not contract.isidentifier():
        raise MalformedInput(f"contract name {contract!r}: expected a Solidity identifier")
    if not statement.isprintable():
        raise MalformedInput(f"statement name {statement!r}: expected printable characters (it goes into a comment)")
    n = vk.n_public
    head = [
        "// SPDX-License-Identifier: MIT",
        f"// Groth16 (BN254) verifier for zkbluff statement {statement},",
        f"// verifying key fingerprint {vk.fingerprint()}. Written by `zkbluff circuits export solidity`.",
        f"pragma solidity {PRAGMA};",
        "",
        f"// Returns true for a valid proof of {statement} with these {n} public inputs, false for anything else",
        "// (an input >= r, a coordinate >= q, a point off its curve or outside its subgroup).",
        f"contract {contract} {{",
    ]
    body = [
        "",
        f"    function verifyProof(uint256[2] calldata a, uint256[2][2] calldata b, uint256[2] calldata c,",
        f"                         uint256[{n}] calldata input) external view returns (bool) {{",
        "        if (a[1] >= Q) return false; // -A is (a[0], Q - a[1]); any other coordinate >= q fails in 0x08",
        *_accumulate_lines(n),
        "        return _pairingHolds(a, b, c, vkx);",
        "    }",
    ]
    return "\n".join(head + _constants(vk) + [_HELPERS.rstrip("\n")] + _pairing_function() + body + ["}", ""])


def proof_calldata(proof: Proof, public: Sequence[int]) -> list[int]:
    """The argument words of ``verifyProof`` (after the 4-byte selector): a, b (imaginary
    parts first), c, then the public inputs, each a uint256."""
    a = _g1_words(proof.a, "pi_a")
    c = _g1_words(proof.c, "pi_c")
    return [*a, *_g2_words(proof.b, "pi_b"), *c, *public]
