# Two commands for a fresh machine (see README.md):
#   make demo   create the environment, install, start a simulated table with players acting
#   make test   create the environment, install, run ruff, mypy --strict and the whole test suite
# Both are idempotent: the environment is rebuilt only when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pytest workers (pytest-xdist): the suite's files are shared between them, each file on one worker, so
# that module fixtures (the native build, the calibrated profiles) are made once. 0 runs in this process.
PYTEST_WORKERS ?= 2

.PHONY: demo test lint typecheck pytest install clean bench

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/cardtable demo $(ARGS)

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/cardtable bench $(ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
