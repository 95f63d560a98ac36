# equilibria: `make demo` and `make test` work from a fresh clone with Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow lint format readme bench clean docs typecheck-tree test-oldest test-backends

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# setuptools advises on every editable install that a folder named like the package may
# shadow it (here the folder is the package); PYTHONWARNINGS keeps that off the terminal
PIP_INSTALL := PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[test]'
	touch $(VENV)/.installed $@

# LiteEFG (a peer of benchmarks/first_order.py) is installed without its dependencies: they
# are JAX and Flax, for its deep-learning half, which the tabular PCFR+ does not import.
$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[bench]'
	$(PIP_INSTALL) --no-deps LiteEFG==1.0.0
	touch $(VENV)/.installed $@

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[docs]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	$(BIN)/equilibria info leduc
	$(BIN)/equilibria solve leduc

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q

test-slow: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -m slow

# ruff (lint and format check) and mypy, as CI runs them before the tests
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@$(MAKE) --no-print-directory typecheck-tree
	MYPYPATH=build/typecheck $(BIN)/mypy -p equilibria

# mypy and mkdocstrings read packages by folder; build the equilibria.* namespace the
# install maps (equilibria.models -> models/, ...) as a tree of symbolic links
typecheck-tree:
	rm -rf build/typecheck && mkdir -p build/typecheck/equilibria
	ln -s $(CURDIR)/equilibria/* build/typecheck/equilibria/
	for d in models formulations solvers instances scripts; do ln -s $(CURDIR)/$$d build/typecheck/equilibria/$$d; done

format: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# regenerate the sample outputs in README.md from the real commands
readme: $(VENV)/.installed
	$(BIN)/python -m equilibria.scripts.readme_samples README.md

# the documentation site (mkdocs.yml, docs/) into build/site; every example on it runs
# while it builds, from build/docs-scratch, so the files the examples write land there
docs: $(VENV)/.installed-docs typecheck-tree
	rm -rf build/docs-scratch && mkdir -p build/docs-scratch
	cd build/docs-scratch && PATH=$(CURDIR)/$(BIN):$$PATH $(CURDIR)/$(BIN)/mkdocs build --strict -f $(CURDIR)/mkdocs.yml -d $(CURDIR)/build/site

# Peers (OpenSpiel, pygambit 16.7) against us on the standard games; writes
# benchmarks/results.csv and benchmarks/time_vs_size.png. Takes about half an hour.
bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis

# The oldest releases pyproject.toml admits, in a venv of their own: pyomo at its lower bound
# (read from pyproject.toml, so this checks whatever bound is declared), numpy and pandas at
# theirs, scipy at 1.11.1 (1.11.0 is yanked), highspy at its bound, 1.11.0 (through 1.10.0 PDLP
# returns a value of the wrong sign; 1.7.1 lacks Highs.HandleUserInterrupt).
# A bound raised past a pin here fails the install.
VENV_OLDEST := .venv-oldest
OLDEST_PYOMO := $(shell sed -n 's/^ *"pyomo>=\([0-9.]*\)".*/\1/p' pyproject.toml)
OLDEST_PINS := pyomo==$(OLDEST_PYOMO) numpy==1.26.0 scipy==1.11.1 pandas==2.0.0 highspy==1.11.0
# a fast subset that builds, compiles (standard form, LP/MPS, bigm/hull) and solves Pyomo
# models, the slowest few left out: about a minute
OLDEST_TESTS := tests/test_pyomo_matrix.py tests/test_backends.py tests/test_threshold.py tests/test_mip_nash.py \
	-k "not three_player_kuhn_poker and not (sequence_form_lp and 50) and not (hull_agree and 10) and not cli_nash and not sheriff_equilibria"

$(VENV_OLDEST)/bin/python:
	$(PYTHON) -m venv $(VENV_OLDEST)
	echo '*' > $(VENV_OLDEST)/.gitignore
	$@ -m pip install --quiet --upgrade pip

$(VENV_OLDEST)/.installed: pyproject.toml Makefile | $(VENV_OLDEST)/bin/python
	@test -n "$(OLDEST_PYOMO)" || { echo 'test-oldest: no "pyomo>=X" line in pyproject.toml'; exit 1; }
	PYTHONWARNINGS=ignore $(VENV_OLDEST)/bin/python -m pip install --quiet -e '.[test]' $(OLDEST_PINS)
	touch $@

test-oldest: $(VENV_OLDEST)/.installed
	$(VENV_OLDEST)/bin/python -m pip freeze | grep -iE '^(pyomo|numpy|scipy|pandas|highspy)=='
	$(VENV_OLDEST)/bin/python -m pytest -q $(OLDEST_TESTS)

# The optional solver backends in .venv, and their conformance tests (each run within the
# size-limited license its package bundles; without the packages these tests skip)
$(VENV)/.installed-backends: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[test,gurobi,xpress,ortools,cylp,clarabel]'
	touch $(VENV)/.installed $(VENV)/.installed-test $@

test-backends: $(VENV)/.installed-backends
	$(BIN)/python -m pip freeze | grep -iE '^(gurobipy|xpress|ortools|cylp|clarabel)=='
	$(BIN)/python -m pytest -q tests/test_backends.py
