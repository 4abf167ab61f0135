"""The checkout's root, for tests that read files beside the package (docs, circuits, vectors).

Tests live in folders that mirror src/zkbluff (tests/<subpackage>/test_*.py); this module sits in
tests/ itself, which pytest puts on sys.path with the root conftest.
"""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
