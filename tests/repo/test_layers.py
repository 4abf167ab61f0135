"""Imports only go down the documented layers of DESIGN.md (each layer imports only the
layers above it), games do not import each other, and a game's rules are pure.

A game folder's statements (``games/<game>/statements.py``) are in the statements layer:
they import only errors, field, circuit, gadgets, the statements package's own modules and
the card vocabulary games/decks.py (itself in that layer: it imports only errors and fair;
never protocol, the engine or the rest of their game), the rest of their folder may import
them, nothing outside the folder does (the registry finds them on the package path,
:mod:`zkbluff.statements.registry`), and no game imports another game's statements."""
import ast
from pathlib import Path

import pytest
from repo_root import REPO_ROOT

SRC = REPO_ROOT / "src" / "zkbluff"

#: DESIGN.md's layers, top first; within games: the engine (and the shared decks), then
#: each game's folder, then the registry that names them
LAYERS = ["errors", "field", "curve", "circuit", "gadgets", "groth16", "ceremony", "fair", "statements", "protocol",
          "games.engine", "games.<game>", "games.registry", "bots", "server", "cli"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    parts = module.split(".")[1:]  # drop "zkbluff"
    if not parts or parts[0] in ("errors", "__main__"):
        return LAYERS.index("cli") if parts == ["__main__"] else 0
    top = parts[0]
    if top.startswith("cli_"):  # a command group module beside the cli package
        return LAYERS.index("cli")
    if top == "games":
        if len(parts) >= 3 and parts[1] not in ("engine", "decks", "registry") and parts[2] == "statements":
            return LAYERS.index("statements")  # a game folder's statements
        if len(parts) == 1 or parts[1] == "registry":
            return LAYERS.index("games.registry")
        if parts[1] == "decks":  # the card vocabulary (errors and fair only): a game's statements use it too
            return LAYERS.index("statements")
        if parts[1] == "engine":
            return LAYERS.index("games.engine")
        return LAYERS.index("games.<game>")
    assert top in LAYERS, f"{module}: not in a documented layer (add it to DESIGN.md's list and here)"
    return LAYERS.index(top)


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    me = module_name(path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this package
                base = me.split(".")[: len(me.split(".")) - node.level + (path.name == "__init__.py")]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name == "zkbluff":  # `from zkbluff import errors` (a module) or `__version__` (the root)
                out += [(node.lineno, f"zkbluff.{a.name}" if (SRC / f"{a.name}.py").exists() or (SRC / a.name).is_dir()
                         else "zkbluff") for a in node.names]
            else:
                out.append((node.lineno, name))
    return [(n, m) for n, m in out if m == "zkbluff" or m.startswith("zkbluff.")]


MODULES = sorted(SRC.rglob("*.py"))


def test_every_module_is_in_a_layer():
    for path in MODULES:
        layer_of(module_name(path))


def violations(me: str, imports: list[tuple[int, str]]) -> list[str]:
    mine, out = layer_of(me), []
    for lineno, target in imports:
        if target == "zkbluff":
            continue
        theirs = layer_of(target)
        if theirs > mine:
            out.append(f"{me} (layer {LAYERS[mine]}) imports {target} (layer {LAYERS[theirs]}) at line {lineno}: "
                       f"imports go down the layers only")
        elif game_of(me) and game_of(target) and game_of(me) != game_of(target):
            out.append(f"{me} imports another game's module {target} at line {lineno}")
        elif game_of(target) and not game_of(me) and target.split(".")[3:4] == ["statements"]:
            out.append(f"{me} imports the game-owned statements {target} at line {lineno}: only the game's "
                       "own folder imports them (the registry finds them on the package path)")
    return out


def game_of(module: str) -> str:
    """The game folder a module belongs to ("" for the engine, the registry or outside games/)."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "games" and parts[2] not in ("engine", "decks", "registry"):
        return parts[2]
    return ""


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_go_down_the_layers(path):
    assert violations(module_name(path), imports_of(path)) == []


@pytest.mark.parametrize("path", sorted(SRC.glob("games/*/rules.py")), ids=lambda p: p.parent.name)
def test_a_games_rules_are_pure(path):
    """Rules import nothing from I/O, crypto, provers or bots: only errors, decks, the
    engine's rules contract and the field's modulus (a share or a commitment is a field
    element whose range the rules check)."""
    allowed = {"zkbluff.errors", "zkbluff.games.decks", "zkbluff.games.engine.rules", "zkbluff.field"}
    for lineno, target in imports_of(path):
        assert target in allowed, f"{path.parent.name}/rules.py imports {target} at line {lineno}"


def test_the_layer_check_can_fail():
    """Its negative twins: an upward import and a game importing another game are named."""
    assert violations("zkbluff.protocol.envelope", [(3, "zkbluff.games.engine.referee")])
    assert violations("zkbluff.games.engine.referee", [(5, "zkbluff.games.proof_or_bluff.spec")])
    assert violations("zkbluff.games.cheat.spec", [(7, "zkbluff.games.proof_or_bluff.rules")])
    assert not violations("zkbluff.games.cheat.spec", [(7, "zkbluff.games.engine.spec")])
    assert layer_of("zkbluff.protocol.envelope") < layer_of("zkbluff.games.engine.referee")
    assert layer_of("zkbluff.games.engine.referee") < layer_of("zkbluff.games.proof_or_bluff.spec")
    assert layer_of("zkbluff.games.proof_or_bluff.spec") < layer_of("zkbluff.games.registry")
    assert layer_of("zkbluff.games.registry") < layer_of("zkbluff.bots.arena") < layer_of("zkbluff.cli.games")


def test_the_layer_rule_for_game_owned_statements():
    """A game's statements module is in the statements layer: it may import gadgets and
    statements.base, not protocol, the engine or its own game's rules; its own folder may
    import it, another game, the engine, the statements package or the CLI may not."""
    me = "zkbluff.games.cheat.statements"
    assert layer_of(me) == LAYERS.index("statements")
    assert not violations(me, [(1, "zkbluff.gadgets.poseidon"), (2, "zkbluff.statements.base"),
                               (3, "zkbluff.games.decks")])
    assert violations("zkbluff.games.decks", [(1, "zkbluff.protocol.context")])
    assert violations(me, [(3, "zkbluff.protocol.envelope")])
    assert violations(me, [(3, "zkbluff.games.engine.spec")])
    assert violations(me, [(3, "zkbluff.games.cheat.rules")])
    assert violations(me, [(3, "zkbluff.games.bluffers.statements")])
    assert not violations("zkbluff.games.cheat.spec", [(4, me)])
    assert not violations("zkbluff.games.cheat.witness", [(4, me)])
    for outsider in ("zkbluff.games.bluffers.spec", "zkbluff.games.engine.proven_deal", "zkbluff.statements.registry",
                     "zkbluff.statements.keys", "zkbluff.cli.circuits", "zkbluff.bots.arena"):
        assert violations(outsider, [(5, me)]), outsider
    assert not violations("zkbluff.bots.arena", [(5, "zkbluff.games.proof_or_bluff.rules")])


# ------------------------------------------------------------------ the tests' own layout
TESTS = REPO_ROOT / "tests"
#: folders of tests that are about the checkout as a whole, not one subpackage
NOT_A_SUBPACKAGE = {"repo"}


def layout_problems(tests: Path, src: Path) -> list[str]:
    """Tests mirror src/zkbluff: every test file sits in tests/<subpackage>/..., the folder
    names a subpackage or module that exists (or is a whole-checkout folder), and no two test files share
    a name (pytest imports them by basename, without packages)."""
    out, seen = [], {}
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if len(rel.parts) == 1:
            out.append(f"{rel} sits flat in tests/: move it to the folder of the subpackage it tests")
            continue
        folder = rel.parent
        if folder.parts[0] not in NOT_A_SUBPACKAGE and not (src / folder).is_dir() \
                and not (src / folder).with_suffix(".py").is_file():
            out.append(f"{rel}: tests/{folder} mirrors no src/zkbluff/{folder}")
        if path.name in seen:
            out.append(f"{rel} and {seen[path.name]} share a file name")
        seen[path.name] = rel
    return out


def test_tests_mirror_the_source_tree():
    assert layout_problems(TESTS, SRC) == []


def test_the_layout_check_can_fail(tmp_path):
    """Its negative twins: a flat test, a folder mirroring nothing, a name used twice."""
    src = tmp_path / "src"
    (src / "games" / "cheat").mkdir(parents=True)
    tests = tmp_path / "tests"
    for rel in ("test_flat.py", "games/cheat/test_a.py", "nosuch/test_b.py", "games/test_a.py"):
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("")
    problems = layout_problems(tests, src)
    assert any("test_flat.py sits flat" in p for p in problems)
    assert any("tests/nosuch mirrors no" in p for p in problems)
    assert any("share a file name" in p for p in problems)
    assert not any(p.startswith("games/cheat/test_a.py:") for p in problems)
