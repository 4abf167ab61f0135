"""The referee and the proven deal stay a table of short checkers, not long dispatchers
(issue 28): the longest function of each module is under 40 lines, measured on its syntax
tree (a decorator and a docstring count; nested functions count on their own too)."""
import ast
from pathlib import Path

from repo_root import REPO_ROOT

ENGINE = REPO_ROOT / "src" / "zkbluff" / "games" / "engine"
LIMIT = 40


def longest_function(path: Path) -> tuple[int, str]:
    """``(lines, name)`` of the longest function or method in the module at ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    spans = [(node.end_lineno - min([node.lineno, *(d.lineno for d in node.decorator_list)]) + 1, node.name)
             for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.end_lineno is not None]
    return max(spans)


def test_measure_counts_a_long_function(tmp_path: Path) -> None:
    """The negative twin: the measure finds a 41-line method (its decorator counted) past a short one."""
    source = "class C:\n    def short(self):\n        pass\n\n    @property\n    def long(self):\n" + "        x = 1\n" * 39
    (tmp_path / "m.py").write_text(source)
    assert longest_function(tmp_path / "m.py") == (41, "long")


def test_referee_longest_function_is_short() -> None:
    lines, name = longest_function(ENGINE / "referee.py")
    assert lines < LIMIT, f"referee.py: {name} is {lines} lines (limit {LIMIT})"


def test_proven_deal_longest_function_is_short() -> None:
    lines, name = longest_function(ENGINE / "proven_deal.py")
    assert lines < LIMIT, f"proven_deal.py: {name} is {lines} lines (limit {LIMIT})"
