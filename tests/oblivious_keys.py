"""Seeded (insecure, test-only) Groth16 keys for the oblivious-deal statements, made once
per test process and shared by the test files that need them."""
from __future__ import annotations

from functools import lru_cache

from zkbluff.curve import get_backend
from zkbluff.groth16 import setup_insecure_seeded_for_tests
from zkbluff.statements import get_statement


@lru_cache(maxsize=None)
def seeded_keys(key_id: str):
    stmt = get_statement(key_id)
    return setup_insecure_seeded_for_tests(stmt.build()[0], "oblivious:" + stmt.key_id, backend=get_backend("mcl"))
