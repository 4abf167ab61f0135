"""The generic checks every registered statement passes, one function each, so that the
parametrised tests (tests/statements/test_statements.py) and the toy game-folder test
(tests/statements/test_game_owned_statements.py) run the same code on any statement."""
from __future__ import annotations

import random

import pytest

from zkbluff.circuit import check
from zkbluff.circuit.audit import unconstrained_public_inputs, under_constrained_wires
from zkbluff.errors import InvalidProof
from zkbluff.field import r
from zkbluff.groth16 import prove, verify

from statement_inputs import valid_inputs


def check_declaration(stmt) -> None:
    """The declaration is the circuit's: its public names are the system's public wires,
    in order, and it names every input the native twin and the witness read."""
    system = stmt.system()
    assert tuple(system.wire_names[1:1 + system.n_public]) == stmt.public == stmt.inputs.public_names
    assert stmt.private == stmt.inputs.private_names
    assert "context" in stmt.public
    inputs = valid_inputs(stmt, random.Random(stmt.key_id + "declared"))
    assert set(inputs) <= set(stmt.public) | set(stmt.private)
    assert set(stmt.private) <= set(inputs)


def check_private_wires_pinned(stmt, seed: str) -> None:
    rng = random.Random(seed)
    for _ in range(2):
        system, witness = stmt.build(valid_inputs(stmt, rng))
        check(system, witness)
        assert system.n_public == len(stmt.public)
        assert under_constrained_wires(system, witness) == []
        shape, _ = stmt.build()
        assert shape.fingerprint() == system.fingerprint()


def check_no_public_input_free(stmt) -> None:
    assert unconstrained_public_inputs(stmt.build()[0]) == [], stmt.key_id


def check_proves_and_publics_bound(stmt, pk, backend, seed: str) -> None:
    system, witness = stmt.build(valid_inputs(stmt, random.Random(seed)))
    public = witness[1: 1 + system.n_public]
    assert public == stmt.public_values(valid_inputs(stmt, random.Random(seed)))
    proof = prove(pk, witness, backend=backend)
    verify(pk.vk, public, proof, backend=backend)
    for i in range(len(stmt.public)):
        changed = list(public)
        changed[i] = (changed[i] + 1) % r
        with pytest.raises(InvalidProof):
            verify(pk.vk, changed, proof, backend=backend)


def check_native_twin_agrees(stmt, seed: int) -> None:
    inputs = valid_inputs(stmt, random.Random(seed))
    system, witness = stmt.build(inputs)
    assert witness[1: 1 + system.n_public] == stmt.public_values(inputs)
