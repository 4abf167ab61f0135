"""The mutation-testing set-up (tools/mutate.py, mutation/*) stays runnable without running it.

``make mutate`` is slow and not part of ``make test``; these checks are: every target's
module and test files exist (wherever tests/ puts them), the modules issue 21 names are
all targets, every equivalent mutant has a reason and still names a line of the definition
its key names (and, with the mutate extra, a mutant cosmic-ray makes of today's code), a
mutant's key names its enclosing definition, and our two operators (deleting a ``raise``,
deleting a call made for its effect) mutate as documented.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def _load_tool():
    spec = importlib.util.spec_from_file_location("zkbluff_mutate_tool", ROOT / "tools" / "mutate.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


tool = _load_tool()


def test_every_target_exists_and_names_are_unique():
    settings, targets = tool.load_config()
    assert targets and settings["operators"]
    for t in targets:
        assert (ROOT / t.module).is_file()
        for test in t.tests:
            assert (ROOT / test.split("::")[0]).is_file(), (t.name, test)


def test_the_modules_of_issue_21_are_targets():
    _, targets = tool.load_config()
    modules = {t.module for t in targets}
    wanted = {"src/zkbluff/groth16/verify.py", "src/zkbluff/games/engine/referee.py", "src/zkbluff/games/engine/rules.py",
              "src/zkbluff/protocol/envelope.py", "src/zkbluff/protocol/signing.py", "src/zkbluff/protocol/transcript.py",
              "src/zkbluff/ceremony/trust.py", "src/zkbluff/ceremony/match.py"}
    wanted |= {str(p.relative_to(ROOT)) for p in (ROOT / "src/zkbluff/gadgets").glob("*.py") if p.name != "__init__.py"}
    wanted |= {str(p.relative_to(ROOT)) for p in (ROOT / "src/zkbluff/games").glob("*/rules.py")}
    assert wanted - modules == set()


def test_a_game_folders_own_targets_are_read(tmp_path):
    """A game keeps its targets in its folder (games/<game>/mutation.toml): they join
    mutation/targets.toml's; a game's file with settings, or a name used twice, is refused."""
    _, targets = tool.load_config()
    assert "rules.cheat" in {t.name for t in targets}
    assert "rules.cheat" not in (ROOT / "mutation" / "targets.toml").read_text()
    folders = {e["name"] for f in sorted((ROOT / "src/zkbluff/games").glob("*/mutation.toml"))
               for e in tool._toml(f.read_text())["target"]}  # every game folder's own (Cheat's, Liar's Dice's)
    assert {"rules.cheat", "rules.liars_dice"} <= folders
    assert {t.name for t in tool.load_config(games=None)[1]} == {t.name for t in targets} - folders
    game = tmp_path / "toy"
    game.mkdir()
    entry = '[[target]]\nname = "NAME"\nmodule = "src/zkbluff/games/cheat/rules.py"\n' \
            'tests = ["tests/games/cheat/test_cheat_rules.py"]\n'
    (game / "mutation.toml").write_text(entry.replace("NAME", "rules.toy"))
    assert "rules.toy" in {t.name for t in tool.load_config(games=str(tmp_path / "*" / "mutation.toml"))[1]}
    (game / "mutation.toml").write_text(entry.replace("NAME", "groth16.verify"))  # a name targets.toml uses
    with pytest.raises(SystemExit, match="duplicate target names"):
        tool.load_config(games=str(tmp_path / "*" / "mutation.toml"))
    (game / "mutation.toml").write_text("[settings]\nfail-under = 0\n" + entry.replace("NAME", "rules.toy"))
    with pytest.raises(SystemExit, match=r"\[\[target\]\] entries only"):
        tool.load_config(games=str(tmp_path / "*" / "mutation.toml"))


def test_a_test_file_moved_under_tests_is_found_by_name():
    moved = tool.resolve_test("tests/somewhere_else/test_gadgets.py", "here")
    assert moved.endswith("test_gadgets.py") and (ROOT / moved).is_file()
    with pytest.raises(SystemExit, match="no test file tests/test_no_such_file.py"):
        tool.resolve_test("tests/test_no_such_file.py", "here")


def test_every_equivalent_mutant_has_a_reason_and_a_line_in_its_definition():
    import ast

    equivalents = tool.load_equivalents()
    _, targets = tool.load_config()
    modules = {t.module for t in targets}
    assert len(equivalents) >= 60
    for key, reason in equivalents.items():
        module, definition, operator, line, occurrence = tool.split_key(key)
        assert module in modules, key
        assert len(reason) > 20, key
        assert occurrence.startswith("#") and occurrence[1:].isdigit(), key
        source = (ROOT / module).read_text()
        defs = tool.definitions(ast.parse(source))
        where = [n for n, ln in enumerate(source.splitlines(), 1) if " ".join(ln.split()) == line]
        assert where, f"stale equivalent (the line changed): {key}"
        assert definition in {tool.enclosing_definition(defs, n) for n in where}, \
            f"stale equivalent (the line is no longer in {definition}): {key}"


@pytest.mark.mutate
def test_every_equivalent_mutant_is_a_mutant_of_todays_code():
    """Each listed key is the key of a mutant cosmic-ray makes of the module as it is now
    (the same operators, the same numbering on the line): an entry whose mutant is gone
    would silently excuse nothing, or, worse, a different mutant after an edit."""
    settings, _ = tool.load_config()
    equivalents = tool.load_equivalents()
    by_module: dict[str, set[str]] = {}
    for key in equivalents:
        by_module.setdefault(tool.split_key(key)[0], set()).add(key)
    for module, keys in sorted(by_module.items()):
        made = {" ".join(k.split()) for k in tool.current_mutants(module, settings)}
        assert keys - made == set(), f"{module}: listed equivalents that are no mutant of today's code"


def test_a_key_names_the_innermost_definition_decorators_included():
    import ast
    src = ("import dataclasses\n"                      # 1
           "X = 1 + 2\n"                               # 2
           "@dataclasses.dataclass(frozen=True)\n"     # 3
           "class A:\n"                                # 4
           "    kind = 'a'\n"                          # 5
           "    def f(self):\n"                        # 6
           "        def g():\n"                        # 7
           "            return 1 + 2\n"                # 8
           "        return g() + 2\n"                  # 9
           "@dataclasses.dataclass(frozen=True)\n"     # 10
           "class B:\n"                                # 11
           "    def f(self):\n"                        # 12
           "        return 1 + 2\n")                   # 13
    defs = tool.definitions(ast.parse(src))
    assert [tool.enclosing_definition(defs, n) for n in (2, 3, 5, 6, 8, 9, 10, 13)] == \
        ["<module>", "A", "A", "A.f", "A.f.g", "A.f", "B", "B.f"]

    class M:  # a mutation as cosmic-ray describes it
        def __init__(self, line, col, occurrence, operator="core/ReplaceBinaryOperator_Add_Sub"):
            self.start_pos, self.occurrence, self.operator_name = (line, col), occurrence, operator

    keys = tool.mutant_keys("m.py", src, [M(8, 21, 1), M(13, 17, 3), M(2, 6, 0), M(3, 0, 0, "core/RemoveDecorator"),
                                          M(10, 0, 1, "core/RemoveDecorator")])
    assert keys == ["m.py::A.f.g | ReplaceBinaryOperator_Add_Sub | return 1 + 2 | #0",
                    "m.py::B.f | ReplaceBinaryOperator_Add_Sub | return 1 + 2 | #0",
                    "m.py::<module> | ReplaceBinaryOperator_Add_Sub | X = 1 + 2 | #0",
                    "m.py::A | RemoveDecorator | @dataclasses.dataclass(frozen=True) | #0",
                    "m.py::B | RemoveDecorator | @dataclasses.dataclass(frozen=True) | #0"]
    assert tool.split_key("m.py::A.f | NumberReplacer | a | b | #1") == ("m.py", "A.f", "NumberReplacer", "a | b", "#1")
    with pytest.raises(ValueError, match="not a mutant key"):
        tool.split_key("m.py | NumberReplacer | x = 1 | #0")  # the form before definitions


@pytest.mark.mutate
def test_the_same_line_in_two_definitions_gives_two_keys():
    """What the definition in the key is for: a line that recurs in a module (here a frozen
    dataclass decorator on two action classes) is a mutant of each, told apart by name."""
    settings, _ = tool.load_config()
    keys = tool.current_mutants("src/zkbluff/games/proof_or_bluff/rules.py", settings)
    decorators = {k for k in keys if " | RemoveDecorator | @dataclass(frozen=True) | " in k}
    assert {"src/zkbluff/games/proof_or_bluff/rules.py::Accept | RemoveDecorator | @dataclass(frozen=True) | #0",
            "src/zkbluff/games/proof_or_bluff/rules.py::Challenge | RemoveDecorator | @dataclass(frozen=True) | #0"} <= decorators
    assert len(keys) == len(set(keys))


def test_equivalents_file_needs_a_definition_a_reason_and_no_repeats(tmp_path):
    bad = tmp_path / "eq.txt"
    bad.write_text("src/x.py::f | NumberReplacer | x = 1 | #0\n")
    with pytest.raises(SystemExit, match="expected 'module::definition"):
        tool.load_equivalents(bad)
    bad.write_text("src/x.py | NumberReplacer | x = 1 | #0 -- the form before definitions were named\n")
    with pytest.raises(SystemExit, match="expected 'module::definition"):
        tool.load_equivalents(bad)
    bad.write_text("src/x.py::f | NumberReplacer | x = 1 | #0 --   \n")
    with pytest.raises(SystemExit, match="needs a one-line reason"):
        tool.load_equivalents(bad)
    twice = "src/x.py::f | NumberReplacer | x = 1 | #0 -- the value is never read again here\n"
    bad.write_text(twice + twice.replace("the value", "this value"))
    with pytest.raises(SystemExit, match="listed twice"):
        tool.load_equivalents(bad)
    bad.write_text("# a comment\n\nsrc/x.py::f  |  NumberReplacer | x = 1 | #0 -- the value is never read again here\n")
    assert tool.load_equivalents(bad) == {"src/x.py::f | NumberReplacer | x = 1 | #0": "the value is never read again here"}


def test_scope_skips_annotations_and_keeps_named_functions():
    import ast
    src = "def f(a: int | None = 1) -> int:\n    return a + 1\n\nclass C:\n    def g(self):\n        return 2 - 1\n"
    tree = ast.parse(src)
    spans = tool._annotation_spans(tree)
    assert any(tool._within((1, 9), s) for s in spans) and not any(tool._within((2, 13), s) for s in spans)
    assert tool._function_spans(tree, ["f"]) == [(1, 2)]
    assert tool._function_spans(tree, ["C.g"]) == [(5, 6)] == tool._function_spans(tree, ["g"])
    assert tool._function_spans(tree, ["C"]) == [(4, 6)]


@pytest.mark.mutate
def test_our_operators_delete_a_raise_and_an_effect_call():
    """Needs cosmic-ray (the mutate extra): `make mutate` runs it first; `make test` deselects it."""
    from cosmic_ray.mutating import MutationVisitor

    ops = tool._operators()
    src = "def f(cs, x):\n    if x:\n        raise ValueError(x)\n    cs.enforce(x, 1, 0)\n    y = g(x)\n    return y\n"
    assert MutationVisitor.mutate_code(src, ops["RemoveRaise"](), 0) == src.replace("raise ValueError(x)", "pass")
    assert MutationVisitor.mutate_code(src, ops["RemoveCall"](), 0) == src.replace("cs.enforce(x, 1, 0)", "pass")
    assert MutationVisitor.mutate_code(src, ops["RemoveCall"](), 1) is None  # g(x) is assigned: not an effect call
    bare = "try:\n    f()\nexcept E:\n    raise\n"
    assert MutationVisitor.mutate_code(bare, ops["RemoveRaise"](), 0) == bare.replace("    raise\n", "    pass\n")
