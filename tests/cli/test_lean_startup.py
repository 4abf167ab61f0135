"""Start-up without waste: Poseidon's constants read from shipped generated data (equal to
a fresh generation), MCL's library loaded from a kept copy (not rewritten per process),
CLI commands and game specs imported only when used, no numpy for a verifier."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zkbluff.curve import G1_GENERATOR, get_backend
from zkbluff.errors import MalformedInput
from zkbluff.gadgets import poseidon_params as pp


def test_shipped_poseidon_constants_equal_a_fresh_generation():
    assert pp.DATA_FILE.read_bytes() == pp.data_file_bytes()
    for t in pp.SHIPPED_WIDTHS:
        assert pp.params(t) == pp.generate(t)


def test_a_foreign_constants_file_is_not_used(tmp_path, monkeypatch):
    bad = tmp_path / "poseidon_constants.bin"
    bad.write_bytes(b"not the zkbluff file")
    monkeypatch.setattr(pp, "DATA_FILE", bad)
    pp._shipped.cache_clear()
    try:
        assert pp._shipped() == {}
        bad.write_bytes(pp.data_file_bytes([3])[:-40])  # truncated
        pp._shipped.cache_clear()
        assert pp._shipped() == {}
        bad.write_bytes(pp.data_file_bytes([3]))  # its valid twin
        pp._shipped.cache_clear()
        assert pp._shipped()[3] == pp.generate(3)
    finally:
        pp._shipped.cache_clear()


def _run(code: str, cache: Path) -> dict:
    env = {**os.environ, "ZKBLUFF_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


_MCL_PROBE = """
import json, sys
from zkbluff.curve import G1_GENERATOR, get_backend
P = get_backend("mcl").g1_mul(G1_GENERATOR, 123456789)
print(json.dumps({"point": [str(c) for c in P], "module": "mclbn256.mclbn256" in sys.modules}))
"""


def test_mcl_library_is_kept_and_loaded_from_the_copy(tmp_path):
    expected = [str(c) for c in get_backend("pyecc").g1_mul(G1_GENERATOR, 123456789)]
    first = _run(_MCL_PROBE, tmp_path)
    assert first == {"point": expected, "module": True}  # written from the module once
    kept = list((tmp_path / "mcl").glob("*/libmclbn256*")) + list((tmp_path / "mcl").glob("*/lib/libmcl*"))
    assert len(kept) == 2
    second = _run(_MCL_PROBE, tmp_path)
    assert second == {"point": expected, "module": False}  # loaded from the copy


def test_a_broken_kept_library_falls_back_to_the_module(tmp_path):
    _run(_MCL_PROBE, tmp_path)
    for f in (tmp_path / "mcl").glob("*/libmclbn256*"):
        f.write_bytes(b"garbage")
    again = _run(_MCL_PROBE, tmp_path)
    assert again["module"] is True and again["point"] == [
        str(c) for c in get_backend("pyecc").g1_mul(G1_GENERATOR, 123456789)]


_IMPORTS_PROBE = """
import json, sys
from zkbluff.cli import main
try:
    main(["transcript", "--help"])
except SystemExit:
    pass
from zkbluff.groth16 import Proof, VerifyingKey, verify
print(json.dumps(sorted(m for m in ("numpy", "zkbluff.server.app", "zkbluff.cli.games", "zkbluff.cli.server",
                                    "zkbluff.games.cheat.spec", "concurrent.futures", "py_ecc",
                                    "zkbluff.ceremony.phase2") if m in sys.modules)))
"""


def test_a_verifier_imports_only_what_it_uses(tmp_path):
    assert _run(_IMPORTS_PROBE, tmp_path) == []


def test_every_cli_command_is_found_lazily():
    from zkbluff.cli import COMMANDS, main

    cmds = main.all_commands
    assert sorted(cmds) == sorted(COMMANDS)
    assert all(cmds[name].name == name for name in cmds)


def test_game_specs_are_imported_when_looked_up():
    from zkbluff.games.registry import game_names, spec_class

    assert "cheat" in game_names() and "proof-or-bluff" in game_names()
    assert spec_class("cheat").game == "cheat"
    with pytest.raises(MalformedInput, match="known: .*proof-or-bluff"):
        spec_class("chess")


def test_pinned_ids_resolve_from_the_manifest_like_the_registry():
    from zkbluff.ceremony.project import pinned_vk, resolve_pinned_id
    from zkbluff.statements import all_statements, get_statement

    for name in {k.split("@")[0] for k in all_statements()}:
        assert resolve_pinned_id(name) == get_statement(name).key_id
    assert resolve_pinned_id("card.claim.v1@deck=20") == "card.claim.v1@deck=20"
    with pytest.raises(MalformedInput, match="unknown statement 'card.nothing.v1'"):
        resolve_pinned_id("card.nothing.v1")
    assert pinned_vk(resolve_pinned_id("card.claim.v1")).n_public == 4


def test_private_verifying_key_is_read_without_the_proving_key(tmp_path):
    from zkbluff.ceremony.project import file_stem, pinned_vk
    from zkbluff.statements.keys import verifying_key

    vk = pinned_vk("card.claim.v1@deck=52")
    (tmp_path / (file_stem("card.claim.v1@deck=52") + ".vk.json")).write_text(json.dumps(vk.to_json()))
    assert verifying_key("card.claim.v1", tmp_path, create=False) == vk  # no .pk there: never read
    (tmp_path / (file_stem("card.claim.v1@deck=52") + ".vk.json")).write_text("{not json")
    with pytest.raises(MalformedInput):
        verifying_key("card.claim.v1", tmp_path, create=False)


_PRELOAD_PROBE = """
import json, sys, threading
from zkbluff.cli_start import run
sys.argv = ["zkbluff"] + sys.argv[1:]
try:
    run()
except SystemExit:
    pass
started = [t for t in threading.enumerate() if t.name == "zkbluff-preload-mcl"]
for t in started:
    t.join()
print(json.dumps({"thread": bool(started), "mcl": "zkbluff.curve.mcl_backend" in sys.modules}))
"""


def _run_argv(argv: list[str], cache: Path, **env: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _PRELOAD_PROBE, *argv], capture_output=True, text=True, check=True,
                         env={**os.environ, "ZKBLUFF_CACHE_DIR": str(cache), **env})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_verifying_command_loads_mcl_ahead_in_a_thread(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ZKBLUFF_BACKEND"}
    env["ZKBLUFF_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", _PRELOAD_PROBE, "transcript", "--help"], capture_output=True,
                         text=True, check=True, env=env)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"thread": True, "mcl": True}


def test_no_preload_for_other_commands_or_another_backend(tmp_path):
    # the help of a command that never pairs: no thread, MCL not loaded
    assert _run_argv(["hash", "--help"], tmp_path) == {"thread": False, "mcl": False}
    # a verifying command with the backend chosen otherwise: MCL is left alone
    assert _run_argv(["transcript", "--help"], tmp_path, ZKBLUFF_BACKEND="pyecc") == {"thread": False, "mcl": False}


def test_python_m_zkbluff_runs_the_same_entry_point():
    out = subprocess.run([sys.executable, "-m", "zkbluff", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("zkbluff, version ")


_VERIFY_PROBE = """
import json, sys
from zkbluff.cli_start import run
sys.argv = ["zkbluff", "transcript", "verify", sys.argv[1]]
try:
    run()
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps(sorted(m for m in ("numpy", "py_ecc", "concurrent.futures", "zkbluff.ceremony.phase2",
                                    "zkbluff.ceremony.ptau", "Crypto.Cipher.AES", "Crypto.Protocol.KDF",
                                    "Crypto.Protocol.DH", "zkbluff.server.app", "zkbluff.games.proof_or_bluff.bot",
                                    "zkbluff.games.proof_or_bluff.text", "zkbluff.games.proof_or_bluff.moves",
                                    "zkbluff.games.engine.proven_deal", "zkbluff.protocol.entropy",
                                    "zkbluff.protocol.messages") if m in sys.modules)))
"""


def test_transcript_verify_imports_no_prover_ceremony_or_cipher(tmp_path):
    """A whole offline verification of an oblivious-deal match: no numpy, no prover thread
    pool, no ceremony file formats, no cipher or key derivation (it opens nothing), and none
    of a seat's side (bots, terminal text, intents, the dealer's sealed deal)."""
    from repo_root import REPO_ROOT

    transcript = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"
    out = subprocess.run([sys.executable, "-c", _VERIFY_PROBE, str(transcript)], capture_output=True, text=True,
                         check=True, env={**os.environ, "ZKBLUFF_CACHE_DIR": str(tmp_path)})
    assert out.stdout.startswith("OK: proof-or-bluff")
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
