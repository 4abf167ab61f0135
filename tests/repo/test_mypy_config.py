"""mypy is strict on the match engine (and the deals in it) and on every game folder
(issue 28): pyproject.toml's strict override names each, with the flags of ``mypy --strict``
that a per-module section may set. `make test` runs mypy itself; this pins the config, so a
new game folder, or a flag dropped, fails here rather than going unchecked."""
import tomllib

from repo_root import REPO_ROOT

GAMES = REPO_ROOT / "src" / "zkbluff" / "games"
#: ``mypy --strict``'s flags that an override may set (the rest are global: warn_unused_ignores,
#: warn_redundant_casts, warn_unused_configs, check_untyped_defs are set at the top)
STRICT = {"disallow_untyped_defs", "disallow_incomplete_defs", "disallow_untyped_calls",
          "disallow_untyped_decorators", "disallow_any_generics", "disallow_subclassing_any",
          "warn_return_any", "strict_equality", "extra_checks"}


def strict_modules(config: dict) -> set[str]:
    """The module patterns of the overrides that set every strict flag (and no implicit re-export)."""
    mypy = config["tool"]["mypy"]
    out: set[str] = set()
    for section in mypy.get("overrides", []):
        if all(section.get(flag) is True for flag in STRICT) and section.get("implicit_reexport") is False:
            modules = section["module"]
            out |= {modules} if isinstance(modules, str) else set(modules)
    return out


def game_folders() -> list[str]:
    return sorted(p.parent.name for p in GAMES.glob("*/__init__.py"))


def test_the_engine_and_every_game_folder_are_strict() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    assert config["tool"]["mypy"]["check_untyped_defs"] and config["tool"]["mypy"]["warn_unused_ignores"]
    strict = strict_modules(config)
    assert "engine" in game_folders()
    covers = lambda module: module in strict or "zkbluff.games.*" in strict  # noqa: E731
    missing = [f"zkbluff.games.{name}.*" for name in game_folders() if not covers(f"zkbluff.games.{name}.*")]
    assert missing == []
    assert covers("zkbluff.games.registry") and covers("zkbluff.games.decks")
    ignored = {m for s in config["tool"]["mypy"]["overrides"] if s.get("ignore_errors") for m in s["module"]}
    assert not any(m.startswith("zkbluff.games") for m in ignored)


def test_a_folder_left_out_or_a_flag_dropped_is_seen() -> None:
    """The negative twins: a game folder missing from the list, or a strict flag missing
    from its section, leaves that folder out of :func:`strict_modules`."""
    flags = {flag: True for flag in STRICT} | {"implicit_reexport": False}
    config = {"tool": {"mypy": {"overrides": [{"module": ["zkbluff.games.engine.*"], **flags}]}}}
    assert "zkbluff.games.cheat.*" not in strict_modules(config)
    config["tool"]["mypy"]["overrides"][0].pop("extra_checks")
    assert strict_modules(config) == set()
