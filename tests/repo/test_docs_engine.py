"""docs/adding-a-game.md and the README name what the code has."""
import re
from pathlib import Path

from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.games.engine.spec import GameSpec
from zkbluff.games.registry import GAMES
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def test_every_spec_member_the_recipe_names_exists():
    text = (ROOT / "docs" / "adding-a-game.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    names = {m.split("(")[0] for row in rows for m in re.findall(r"`([a-z_]+(?:\([^`]*\))?)`", row.split("|")[1])}
    assert len(names) >= 15
    known = set(dir(GameSpec)) | set(GameSpec.__annotations__)
    assert names <= known, f"the recipe names {sorted(names - known)}, which GameSpec lacks"
    assert "nonexistent_member" not in known  # the check can fail


def test_rules_command_for_every_game_and_a_refusal():
    for game, spec in GAMES.items():
        res = CliRunner().invoke(main, ["rules", game])
        assert res.exit_code == 0 and spec.text.RULES in res.output
    assert "Proof or Bluff" in CliRunner().invoke(main, ["rules"]).output
    res = CliRunner().invoke(main, ["rules", "go-fish"])
    assert res.exit_code == 2 and "go-fish" in res.output


def test_readme_lists_every_registered_game():
    text = (ROOT / "README.md").read_text()
    for game in GAMES:
        assert f"`{game}`" in text
