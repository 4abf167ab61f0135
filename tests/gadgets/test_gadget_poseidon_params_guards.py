"""Poseidon's parameters (zkbluff.gadgets.poseidon_params): the widths it takes, and the
shipped constants file read only when it is this module's own, whole and consistent, else
generated. The constants themselves are pinned by circomlibjs's hashes for every width
(tests/repo/test_vectors.py) and by a fresh generation (tests/cli/test_lean_startup.py).

Found by mutation testing (issue 21, target gadgets.poseidon_params): the gadget and its
native twin read the same parameters, so no "gadget equals twin" test can see them change.
"""
import re
import struct

import pytest

from zkbluff.field import r
from zkbluff.gadgets import poseidon_params as pp


def says(message: str) -> str:
    return "^" + re.escape(message) + "$"


@pytest.fixture
def data_file(tmp_path, monkeypatch):
    """The module reads its constants from a file of the test's; the caches are cleared
    before and after."""
    path = tmp_path / "poseidon_constants.bin"
    monkeypatch.setattr(pp, "DATA_FILE", path)
    pp._shipped.cache_clear()
    pp.params.cache_clear()
    yield path
    pp._shipped.cache_clear()
    pp.params.cache_clear()


def test_widths_two_to_seventeen_and_no_other():
    assert [pp.params(t)[2] for t in (2, 17)] == [56, 68]
    assert len(pp.params(17)[0]) == (8 + 68) * 17 and len(pp.params(17)[1]) == 17
    for t in (1, 18, 0):
        with pytest.raises(ValueError, match=says(f"Poseidon width t must be 2..17, got {t}")):
            pp.params(t)


def test_the_shipped_widths_are_read_from_the_file_and_the_others_generated():
    # both caches from scratch: an earlier test may have re-read the file after params(9) was
    # cached, and the identity below must not depend on the order tests run in
    pp._shipped.cache_clear()
    pp.params.cache_clear()
    shipped = pp._shipped()
    assert sorted(shipped) == list(pp.SHIPPED_WIDTHS) == list(range(2, 10))
    assert pp.params(9) is shipped[9]
    assert 10 not in shipped and pp.params(10) == pp.generate(10)


def test_a_missing_file_means_generating(data_file):
    assert not data_file.exists()
    assert pp._shipped() == {}
    assert pp.params(3) == pp.generate(3)


def test_a_file_of_the_right_magic_but_a_foreign_width_or_count_is_not_used(data_file):
    good = pp.data_file_bytes([3])
    n_c = (8 + pp.N_ROUNDS_P[1]) * 3
    assert good[8:16] == struct.pack("<II", 3, n_c)
    for t, n in ((1, n_c), (18, n_c), (3, n_c - 3)):
        data_file.write_bytes(good[:8] + struct.pack("<II", t, n) + good[16:])
        pp._shipped.cache_clear()
        assert pp._shipped() == {}, (t, n)
    # a width-1 entry consistent in itself (its count, whole, the file's only entry): still no width
    data_file.write_bytes(good[:8] + struct.pack("<II", 1, 8 + pp.N_ROUNDS_P[-1]) + bytes(32 * (8 + pp.N_ROUNDS_P[-1] + 1)))
    pp._shipped.cache_clear()
    assert pp._shipped() == {}
    data_file.write_bytes(good)  # the twin: the same bytes with their own header are read
    pp._shipped.cache_clear()
    assert pp._shipped() == {3: pp.generate(3)}


def test_every_width_in_a_file_is_read(data_file):
    """Two widths in one file, one after the other: both read, each with its own count; the
    first and the last width the module takes (2 and 17) are read too."""
    data = pp.data_file_bytes([2, 4])
    first = 8 + 8 + 32 * ((8 + 56) * 2 + 2 * 2)
    assert struct.unpack_from("<II", data, first) == (4, (8 + 56) * 4)
    assert len(data) == first + 8 + 32 * ((8 + 56) * 4 + 4 * 4)
    data_file.write_bytes(data)
    assert pp._shipped() == {2: pp.generate(2), 4: pp.generate(4)}
    assert pp.params(4) is pp._shipped()[4] and pp.params(3) == pp.generate(3)
    data_file.write_bytes(pp.data_file_bytes([17]))
    pp._shipped.cache_clear()
    assert pp._shipped() == {17: pp.generate(17)}


def test_generated_constants_are_field_elements_and_the_mds_is_invertible_cauchy():
    for t in (2, 10):
        constants, mds, r_p = pp.generate(t)
        assert r_p == pp.N_ROUNDS_P[t - 2] and len(constants) == (8 + r_p) * t
        assert all(0 <= c < r for c in constants) and all(0 < m < r for row in mds for m in row)
        assert len({m for row in mds for m in row}) == t * t  # 1 / (x_i + y_j), distinct x and y


def test_the_regeneration_command_writes_the_shipped_bytes_and_says_so(tmp_path):
    """``python -m zkbluff.gadgets.poseidon_params`` rewrites the file beside the module: run
    here on a copy of the module (so the checkout is untouched), it writes exactly the
    shipped bytes and says where and how many; imported, the module writes nothing."""
    import importlib.util
    import shutil
    import subprocess
    import sys

    copy = tmp_path / "poseidon_params.py"
    shutil.copyfile(pp.__file__, copy)
    written = tmp_path / "poseidon_constants.bin"
    spec = importlib.util.spec_from_file_location("poseidon_params_copy", copy)  # imported: writes nothing
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert not written.exists()
    out = subprocess.run([sys.executable, str(copy)], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert written.read_bytes() == pp.DATA_FILE.read_bytes()
    assert out.stdout == f"wrote {written} ({written.stat().st_size} bytes)\n" and out.stderr == ""
