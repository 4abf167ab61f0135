"""Issue 32 item 8: ``Statement.build`` takes the "0x…" and decimal strings the CLI's own
input files use (examples/claim-input.json), with the same witness as the integers; a
string that is not a number, a bool or an out-of-range value is still refused; and the
typed errors are importable where a user looks for them."""
from __future__ import annotations

import json

import pytest

from repo_root import REPO_ROOT
from zkbluff.errors import MalformedInput
from zkbluff.field import r
from zkbluff.statements import get_statement

EXAMPLE = json.loads((REPO_ROOT / "examples" / "claim-input.json").read_text())


def test_the_cli_input_files_strings_build_the_same_witness_as_integers():
    stmt = get_statement("card.claim.v1")
    ints = {k: int(v, 16) if v.startswith("0x") else int(v) for k, v in EXAMPLE.items()}
    assert stmt.build(EXAMPLE)[1] == stmt.build(ints)[1]
    assert stmt.build({k: str(v) for k, v in ints.items()})[1] == stmt.build(ints)[1]  # decimal strings too


@pytest.mark.parametrize("bad", ["0xZZ", "12a", "", True, 1.0, -1, r, hex(r)])
def test_what_is_not_a_field_element_is_still_refused(bad):
    with pytest.raises(MalformedInput, match="'play' must be an integer 0 <= x < r"):
        get_statement("card.claim.v1").build({**EXAMPLE, "play": bad})


def test_the_errors_are_where_users_look_for_them():
    import zkbluff
    import zkbluff.errors as errors
    from zkbluff import groth16

    assert groth16.InvalidProof is errors.InvalidProof  # beside verify, which raises it
    for name in ("InvalidProof", "MalformedInput", "TranscriptError", "ZkbluffError", "UnsatisfiedConstraint"):
        assert getattr(zkbluff, name) is getattr(errors, name)
