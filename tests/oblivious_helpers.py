"""Shared by the oblivious-deal tests: seeded (insecure, test-only) Groth16 keys made once
per test process, and the chi-square helpers of the view-independence tests."""
from __future__ import annotations

import math
from functools import lru_cache

from zkbluff.curve import get_backend
from zkbluff.groth16 import setup_insecure_seeded_for_tests
from zkbluff.statements import get_statement


@lru_cache(maxsize=None)
def seeded_keys(key_id: str):
    stmt = get_statement(key_id)
    return setup_insecure_seeded_for_tests(stmt.build()[0], "oblivious:" + stmt.key_id, backend=get_backend("mcl"))


def chi2_critical(df: int, z: float = 4.75) -> float:
    """Wilson–Hilferty upper quantile of chi-square (z = 4.75: p about 1e-6)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def independence_chi2(pairs, n_rows: int, n_cols: int) -> float:
    """Pearson's chi-square of independence for (row, column) observations."""
    table = [[0] * n_cols for _ in range(n_rows)]
    for a, b in pairs:
        table[a][b] += 1
    total = len(pairs)
    rows = [sum(t) for t in table]
    cols = [sum(table[i][j] for i in range(n_rows)) for j in range(n_cols)]
    return sum((table[i][j] - rows[i] * cols[j] / total) ** 2 / (rows[i] * cols[j] / total)
               for i in range(n_rows) for j in range(n_cols) if rows[i] and cols[j])
