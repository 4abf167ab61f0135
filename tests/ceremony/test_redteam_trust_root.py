"""Red team of issue 26 item 1 (the trust root is the installed package's registry): a
house that ships a ``circuits/`` folder where the command runs, reached by a plain folder,
a symlink, or an environment variable, does not choose the keys a verifier trusts or a
prover proves with. These attacks fail; the tests pin the guard."""
import json
import os

import pytest

from zkbluff.ceremony.project import pinned_keys, registry_dir, working_registry_dir
from zkbluff.ceremony.trust import TrustContext, check_key
from zkbluff.errors import UntrustedKey
from zkbluff.groth16.keys import VerifyingKey


def _house_registry(folder):
    """A copy of the registry's manifest whose every pin names the house's own key."""
    folder.mkdir()
    manifest = json.loads((registry_dir() / "manifest.json").read_text())
    for pin in manifest["keys"].values():
        pin["vk_fingerprint"] = "ab" * 32
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.fixture
def house_folder(tmp_path, monkeypatch):
    _house_registry(tmp_path / "circuits")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_attack_a_circuits_folder_where_the_command_runs_is_not_the_trust_root(house_folder):
    assert registry_dir() != house_folder / "circuits"
    assert set(TrustContext.default().pinned.values()) == {p["vk_fingerprint"] for p in pinned_keys().values()}
    assert "ab" * 32 not in TrustContext.default().pinned.values()


def test_attack_a_symlinked_circuits_folder_is_not_the_trust_root(tmp_path, monkeypatch):
    real = _house_registry(tmp_path / "elsewhere")
    (tmp_path / "run").mkdir()
    os.symlink(real, tmp_path / "run" / "circuits")
    monkeypatch.chdir(tmp_path / "run")
    assert registry_dir().resolve() != real.resolve()
    assert "ab" * 32 not in TrustContext.default().pinned.values()


@pytest.mark.parametrize("var", ["ZKBLUFF_KEY_DIR", "ZKBLUFF_HOME", "ZKBLUFF_CACHE_DIR", "ZKBLUFF_REGISTRY",
                                 "ZKBLUFF_CIRCUITS", "ZKBLUFF_KEYS"])
def test_attack_an_environment_variable_naming_the_house_folder_is_not_the_trust_root(house_folder, monkeypatch,
                                                                                        var):
    monkeypatch.setenv(var, str(house_folder / "circuits"))
    assert registry_dir() != house_folder / "circuits"
    assert "ab" * 32 not in TrustContext.default().pinned.values()


def test_the_house_key_is_untrusted_while_its_folder_is_the_working_registry(house_folder):
    """The folder `circuits build/check` compare (a lock-file check) is the house's here,
    and still no key of it is trusted: the trust root is registry_dir's alone."""
    assert working_registry_dir() == house_folder / "circuits"
    key_id = next(iter(pinned_keys()))
    from zkbluff.ceremony.project import pinned_vk
    vk = pinned_vk(key_id).to_json()
    vk["vk_alpha_1"] = vk["IC"][0]  # another key (any other point): the house's
    house_vk = VerifyingKey.from_json(vk)
    with pytest.raises(UntrustedKey):
        check_key(key_id, house_vk, TrustContext.default())
    assert check_key(key_id, pinned_vk(key_id), TrustContext.default()).source == "project"  # twin


def test_an_explicit_folder_is_trusted_only_when_passed(tmp_path):
    """Positive twin: the house's pins count only when the caller passes the folder."""
    folder = _house_registry(tmp_path / "given")
    assert set(TrustContext.default(folder).pinned.values()) == {"ab" * 32}
