"""A game folder holds its own statements: a toy game's statement, written in a temporary
folder on the ``zkbluff.games`` package path and nowhere else, is registered, passes the
generic statement checks, gets its docs row, its pin and its vector case from the
generators, and touches no other statement's vector file. Also: the typed declaration
(``Statement.declare``) and its guards, and the registry's guards on a game's module."""
from __future__ import annotations

import importlib.util
import json
import random
import sys
import textwrap

import pytest

import zkbluff.games
from zkbluff.errors import MalformedInput
from zkbluff.groth16 import setup_insecure_seeded_for_tests
from zkbluff.statements import all_statements, get_statement
from zkbluff.statements.base import CONTEXT, Input, Inputs, mask
from zkbluff.statements.keys import build_registry, manifest_entry
from zkbluff.statements.registry import game_folders, shared_statements

from repo_root import REPO_ROOT
from statement_checks import (
    check_declaration, check_native_twin_agrees, check_no_public_input_free, check_private_wires_pinned,
    check_proves_and_publics_bound,
)
from statement_inputs import valid_inputs

TOY = "toy.parity.v1"

#: the whole toy game folder: one file, written only inside its own folder
TOY_STATEMENTS = '''
"""A toy game's one statement: the parity of a committed die."""
from __future__ import annotations

import random

from zkbluff.gadgets import native as nat
from zkbluff.gadgets.poseidon import commit
from zkbluff.gadgets.basic import from_bits
from zkbluff.statements.base import CONTEXT, Inputs, Statement, alloc_mask, bind_context, bit, commitment, number, salt, value

DECLARED = Inputs(public=(commitment("die_commitment"), bit("parity"), CONTEXT),
                  private=(number("die", 3), salt("die_salt")))


def synth(cs, inp, prm):
    pub = {n: cs.public(n, value(inp, n)) for n in DECLARED.public_names}
    bind_context(cs, pub["context"])
    bits = alloc_mask(cs, inp, "die", 3)
    die_salt = cs.private_unchecked("die_salt", value(inp, "die_salt"))
    cs.enforce_equal(commit(cs, from_bits(bits), die_salt, "die_commit"), pub["die_commitment"], "die_opens")
    cs.enforce_equal(bits[0], pub["parity"], "parity")


def native(inp, prm):
    return {"die_commitment": nat.commit(inp["die"], inp["die_salt"]), "parity": inp["die"] & 1,
            "context": inp.get("context", 0)}


def sample(rng: random.Random) -> dict:
    return {"die": rng.randint(1, 6), "die_salt": rng.getrandbits(250), "context": rng.getrandbits(253)}


STATEMENTS = (
    Statement.declare("toy.parity.v1", (), DECLARED, synth, native,
                      "Whether a committed die (1..6) is odd: ``parity`` is its low bit. Discloses one bit.",
                      owner="toydice", sample=sample),
)
'''


def load(name: str, rel: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / rel)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def add_game_folder(monkeypatch, base, game: str, source: str) -> None:
    """A game folder ``game`` under ``base``, put on the games package's path (as an
    installed game beside the others would be), the registry rebuilt."""
    folder = base / game
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(f'"""The {game} game."""\n')
    (folder / "statements.py").write_text(textwrap.dedent(source))
    monkeypatch.setattr(zkbluff.games, "__path__", [*zkbluff.games.__path__, str(base)])
    all_statements.cache_clear()


@pytest.fixture()
def games_path(monkeypatch, tmp_path):
    """A clean slate for a test that adds game folders: afterwards the package path, the
    imported modules and the registry are as before."""
    before = set(sys.modules)
    yield tmp_path / "games"
    monkeypatch.undo()
    for name in set(sys.modules) - before:
        if name.startswith("zkbluff.games."):
            del sys.modules[name]
    all_statements.cache_clear()


@pytest.fixture()
def toy(monkeypatch, games_path):
    add_game_folder(monkeypatch, games_path, "toydice", TOY_STATEMENTS)
    return all_statements()[TOY]


def test_the_toy_is_registered_from_its_folder_alone(toy):
    assert toy.owner == "toydice" and get_statement(TOY) is toy
    assert list(all_statements())[-1] == TOY  # after the shared catalog and every game before it by name
    folders = [g for g, _ in game_folders()]
    assert folders[-1] == "toydice" and {"cheat", "liars_dice"} <= set(folders) and folders == sorted(folders)
    assert toy.public == ("die_commitment", "parity", "context") and toy.private == ("die", "die_salt")


def test_the_generic_statement_checks_pick_the_toy_up(toy, mcl):
    check_declaration(toy)
    check_private_wires_pinned(toy, TOY)
    check_no_public_input_free(toy)
    check_native_twin_agrees(toy, 7)
    pk = setup_insecure_seeded_for_tests(toy.system(), TOY, backend=mcl)
    check_proves_and_publics_bound(toy, pk, mcl, TOY + "p")
    inputs = valid_inputs(toy, random.Random(1))  # tests/statement_inputs.py: the toy's own sampler
    assert 1 <= inputs["die"] <= 6


def test_the_docs_row_and_the_owned_list_come_from_the_toy(toy):
    docs = load("zkbluff_statement_docs_toy", "tools/statement_docs.py")
    n = toy.system().n_constraints
    row = f"| `{TOY}` | {n} | die_commitment, parity, context | die, die_salt |"
    rendered = docs.render((REPO_ROOT / "docs" / "statements.md").read_text())
    assert row in rendered.splitlines()
    assert "- **toy.parity.v1** (`src/zkbluff/games/toydice/statements.py`) — Whether a committed die (1..6) is odd: " \
           "`parity` is its low bit. Discloses one bit." in rendered.splitlines()
    problems = docs.check()  # the committed page lacks exactly the toy's generated lines: `make docs` writes them
    assert problems and all("toy.parity.v1" in p for p in problems)


def test_the_pin_is_the_generated_manifest(toy, tmp_path):
    """The pinned counts are circuits/manifest.json's: the committed one lacks the toy alone
    (the pin test and `zkbluff circuits check` fail on it, and on it only), and
    `zkbluff circuits build` (build_registry) writes its entry and changes no other."""
    pinned = {e["id"]: e for e in json.loads((REPO_ROOT / "circuits" / "manifest.json").read_text())["statements"]}
    counts = {k: s.system().n_constraints for k, s in all_statements().items()}
    assert {k for k in counts if pinned.get(k, {}).get("constraints") != counts[k]} == {TOY}
    entries = {e["id"]: e for e in build_registry(tmp_path / "circuits")}
    assert entries[TOY]["constraints"] == counts[TOY] == manifest_entry(toy)["constraints"]
    assert entries[TOY]["public_inputs"] == ["die_commitment", "parity", "context"]
    assert (tmp_path / "circuits" / entries[TOY]["file"]).is_file()
    assert {k: e for k, e in entries.items() if k != TOY} == pinned  # the toy changes no other statement's entry


def test_the_vectors_ask_for_the_toy_and_rewrite_no_other_file(toy):
    gen = load("zkbluff_statement_vectors_toy", "vectors/statements/generate.py")
    committed = gen.load_committed()
    docs, problems = gen.build_all(committed, prove_missing=False)
    assert problems == [f"{TOY}: no vector file (run `make vectors`)"]
    assert gen.diff(committed, docs) == []  # every other file regenerates identically
    assert gen.foreign_statement(TOY, None, {k: None for k in docs}) == gen.ANCHOR
    inputs, other = gen.fresh_inputs(toy)  # a build's new inputs: the toy's own sampler
    assert set(inputs) == {"die", "die_salt", "context"} and other != inputs["context"]


def test_the_toy_folder_keeps_the_layer_rule(toy, games_path):
    layers = load("zkbluff_layers_toy", "tests/repo/test_layers.py")
    path = games_path / "toydice" / "statements.py"
    me = "zkbluff.games.toydice.statements"
    imports = [(n, m) for n, m in _imports(path)]
    assert imports and layers.violations(me, imports) == []
    assert layers.violations(me, imports + [(99, "zkbluff.games.engine.spec")])
    assert layers.violations("zkbluff.games.cheat.spec", [(1, me)])


def _imports(path):
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("zkbluff"):
            out.append((node.lineno, node.module))
    return out


def test_a_game_module_that_is_not_a_tuple_of_statements_is_refused(monkeypatch, games_path):
    add_game_folder(monkeypatch, games_path, "badgame", "STATEMENTS = ['card.play.v1']\n")
    with pytest.raises(TypeError, match="zkbluff.games.badgame.statements.STATEMENTS must be a tuple"):
        all_statements()


def test_a_statement_held_by_a_folder_it_does_not_name_is_refused(monkeypatch, games_path):
    add_game_folder(monkeypatch, games_path, "thief", TOY_STATEMENTS)  # owner says toydice
    with pytest.raises(ValueError, match="held in games/thief/ but names owner 'toydice'"):
        all_statements()


def test_a_key_registered_twice_is_refused(monkeypatch, games_path):
    source = TOY_STATEMENTS.replace('"toy.parity.v1", ()', '"card.absorb_many.v1", (("deck", 52), ("plays", 4))')
    add_game_folder(monkeypatch, games_path, "twin", source.replace('owner="toydice"', 'owner="twin"'))
    with pytest.raises(ValueError, match="card.absorb_many.v1@deck=52,plays=4 is registered twice"):
        all_statements()


def test_cheat_holds_its_statement_and_the_shared_catalog_does_not():
    key = "card.absorb_many.v1@deck=52,plays=4"
    assert all_statements()[key].owner == "cheat"
    assert key not in {s.key_id for s in shared_statements()}
    assert all(s.owner is None for s in shared_statements())


# ---------------------------------------------------------------- the typed declaration

def test_a_declaration_gives_the_name_lists_and_checks_the_inputs():
    stmt = all_statements()["card.absorb_many.v1@deck=52,plays=4"]
    assert stmt.inputs.by_name()["old_hand"] == mask("old_hand", 52)
    assert stmt.public == stmt.inputs.public_names and stmt.private == stmt.inputs.private_names
    good = valid_inputs(stmt, random.Random(3))
    stmt.complete(good)
    with pytest.raises(MalformedInput, match="'old_hand' must be a mask over 52"):
        stmt.complete({**good, "old_hand": 1 << 52})
    undeclared = get_statement("card.absorb.v1@deck=52")  # a statement from name lists: no width known
    assert undeclared.declared is None and undeclared.inputs.by_name()["old_hand"] == Input("old_hand")


def test_a_declaration_refuses_what_it_cannot_mean():
    with pytest.raises(ValueError, match="unknown kind"):
        Input("x", "card")
    with pytest.raises(ValueError, match="needs width"):
        Input("x", "mask")
    with pytest.raises(ValueError, match="takes no width"):
        Input("x", "salt", 3)
    with pytest.raises(ValueError, match="declared twice: x"):
        Inputs((Input("x"), CONTEXT), (Input("x"),))
    with pytest.raises(ValueError, match="context"):
        Inputs((Input("x"),), ())
    with pytest.raises(MalformedInput, match="is a bit"):
        Input("b", "bit").check("k", 2)
    Input("b", "bit").check("k", 1)


def test_a_catalog_row_writes_a_long_numbered_run_as_its_ends():
    declared = Inputs((*(Input(f"commitment{i}") for i in range(52)), CONTEXT),
                      (*(Input(f"card{i}") for i in range(9)), *(Input(f"salt{i}") for i in range(8))))
    public, private = declared.catalog_columns()
    assert public == "commitment0..commitment51, context"
    assert private == "card0..card8, " + ", ".join(f"salt{i}" for i in range(8))


def test_a_shared_statement_is_found_without_importing_any_game_folder():
    """A verifier that needs only shared statements imports no game folder; looking up a
    game's statement imports that folder (a subprocess: this one has every game imported)."""
    import subprocess

    code = ("import sys\nfrom zkbluff.statements import get_statement\n"
            "get_statement('card.play.v1'); get_statement('card.deal.v2@deck=52,hands=7-7,board=0,entropies=2')\n"
            "print('zkbluff.games' in sys.modules)\n"
            "get_statement('card.absorb_many.v1')\n"
            "print('zkbluff.games.cheat.statements' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO_ROOT / "src")}).stdout.split()
    assert out == ["False", "True"]
