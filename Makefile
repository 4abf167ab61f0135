# zkbluff — the two commands a new machine needs: `make demo` and `make test`.
# Both create .venv and install what they need; both are idempotent.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
NODE_BIN := $(CURDIR)/node_modules/.bin

.PHONY: demo test test-fast typecheck bench mutate keys vectors docs circuits clean services chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.stamp-install: pyproject.toml setup.py $(wildcard src/zkbluff/_native/*.c) | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-install
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

# matplotlib for the benchmark chart (the bench extra; never the library's or the tests')
$(VENV)/.stamp-bench: pyproject.toml $(VENV)/.stamp-test
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

# cosmic-ray for `make mutate` (the mutate extra; never the library's or the tests')
$(VENV)/.stamp-mutate: pyproject.toml $(VENV)/.stamp-test
	$(BIN)/python -m pip install -q -e '.[test,mutate]'
	touch $@

# snarkjs, circom2, circomlib, circomlibjs for the interop tests and vector generators
node_modules/.stamp: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# PostgreSQL and Redis for the tests of the scale-out stores (tests/services.py starts each on
# loopback, its data in a temporary folder, and stops it): Debian's packages, installed once.
# Without root they are only named; the tests that need them then skip (CI, as root, installs).
services:
	@if ! command -v redis-server >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing postgresql and redis-server (Debian packages) for the tests that need them"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends postgresql redis-server >/dev/null; \
	  else \
	    echo "postgresql or redis-server is not installed (apt-get install postgresql redis-server as root):" \
	         "the tests that need them skip"; \
	  fi; \
	fi

# Debian's chromium for the browser-proof test (tests/circuit/test_circom_browser.py, driven by
# playwright-core from npm): installed once as root, else only named (the test then skips; CI,
# as root, installs it).
chromium:
	@if ! command -v chromium >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing chromium (Debian package) for the browser-proof test"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends chromium >/dev/null; \
	  else \
	    echo "chromium is not installed (apt-get install chromium as root): the browser-proof test skips"; \
	  fi; \
	fi

demo: $(VENV)/.stamp-install
	$(BIN)/zkbluff demo

test: $(VENV)/.stamp-test node_modules/.stamp services chromium
	$(BIN)/zkbluff circuits check
	$(BIN)/mypy
	PATH="$(NODE_BIN):$$PATH" ZKBLUFF_NODE_MODULES="$(CURDIR)/node_modules" $(BIN)/python -m pytest -q

# the tests without the slow ones (for the edit-run loop; CI runs `make test`)
test-fast: $(VENV)/.stamp-test node_modules/.stamp services
	PATH="$(NODE_BIN):$$PATH" ZKBLUFF_NODE_MODULES="$(CURDIR)/node_modules" $(BIN)/python -m pytest -q -m "not slow"

# the type check alone (configured in pyproject.toml: strict for games, protocol and bots)
typecheck: $(VENV)/.stamp-test
	$(BIN)/mypy

# rebuild the conformance vectors that zkbluff makes itself: vectors/statements/ (proves only for
# a new or changed statement, under the pinned keys) and vectors/transcripts/ (plays the base
# matches, then derives the mutations; a few minutes). `make test` regenerates what is
# deterministic and diffs it.
vectors: $(VENV)/.stamp-install
	$(BIN)/python vectors/statements/generate.py
	$(BIN)/python vectors/transcripts/generate.py --matches

# docs/statements.md's table (a row per registered statement: count, public and private inputs)
# and its list of game-owned statements, generated from the registry; the tests run --check
docs: $(VENV)/.stamp-install
	$(BIN)/python tools/statement_docs.py

# re-run the project ceremony after a statement changed (rebuilds circuits/ and circuits/keys/)
keys: $(VENV)/.stamp-install
	$(BIN)/zkbluff ceremony project

# groth16py (arkworks, native) is a peer in the table where it installs; not a dependency
bench: $(VENV)/.stamp-bench node_modules/.stamp
	-$(BIN)/python -m pip install -q groth16py
	PATH="$(NODE_BIN):$$PATH" ZKBLUFF_NODE_MODULES="$(CURDIR)/node_modules" $(BIN)/python benchmarks/run.py

# mutation testing, module by module against the tests that exercise each module (about an
# hour on 2 cores; not part of `make test`): mutation/targets.toml, mutation/equivalent.txt,
# report in benchmarks/mutation-results.md. MUTATE="gadgets.* groth16.verify" picks targets.
mutate: $(VENV)/.stamp-mutate node_modules/.stamp
	$(BIN)/python -m pytest -q -m mutate tests/repo/test_mutation_config.py
	$(BIN)/python tools/mutate.py --jobs 2 $(MUTATE)

clean:
	rm -rf $(VENV) node_modules .pytest_cache .hypothesis .mypy_cache build/mutation
