"""The mutation-testing set-up (tools/mutate.py, mutation/*) stays runnable without running it.

``make mutate`` is slow and not part of ``make test``; these checks are: every target's
module and test files exist (wherever tests/ puts them), the modules issue 21 names are
all targets, every equivalent mutant has a reason and still names a line of its module,
and our two operators (deleting a ``raise``, deleting a call made for its effect) mutate
as documented.
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


def test_a_test_file_moved_under_tests_is_found_by_name():
    moved = tool.resolve_test("tests/somewhere_else/test_gadgets.py", "here")
    assert moved.endswith("test_gadgets.py") and (ROOT / moved).is_file()
    with pytest.raises(SystemExit, match="no test file tests/test_no_such_file.py"):
        tool.resolve_test("tests/test_no_such_file.py", "here")


def test_every_equivalent_mutant_has_a_reason_and_a_line():
    equivalents = tool.load_equivalents()
    _, targets = tool.load_config()
    modules = {t.module for t in targets}
    for key, reason in equivalents.items():
        fields = key.split(" | ")  # the line itself may hold " | "
        module, operator, line, occurrence = fields[0], fields[1], " | ".join(fields[2:-1]), fields[-1]
        assert module in modules, key
        assert len(reason) > 20, key
        assert occurrence.startswith("#") and occurrence[1:].isdigit(), key
        text = [" ".join(ln.split()) for ln in (ROOT / module).read_text().splitlines()]
        assert line in text, f"stale equivalent (the line changed): {key}"


def test_equivalents_file_needs_a_reason(tmp_path):
    bad = tmp_path / "eq.txt"
    bad.write_text("src/x.py | NumberReplacer | x = 1 | #0\n")
    with pytest.raises(SystemExit, match="expected 'module"):
        tool.load_equivalents(bad)
    bad.write_text("src/x.py | NumberReplacer | x = 1 | #0 --   \n")
    with pytest.raises(SystemExit, match="needs a one-line reason"):
        tool.load_equivalents(bad)
    bad.write_text("# a comment\n\nsrc/x.py  |  NumberReplacer | x = 1 | #0 -- the value is never read again here\n")
    assert tool.load_equivalents(bad) == {"src/x.py | NumberReplacer | x = 1 | #0": "the value is never read again here"}


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
