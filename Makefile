# Commands for a fresh machine (see README.md):
#   make demo    create the environment with the runtime only, start a simulated table with players acting
#   make test    create the environment with the dev tools, run ruff, mypy --strict and the whole test suite
#   make check   the fast tier of make test, to run before each commit
#   make lock    resolve the dependencies in pyproject.toml again into requirements/*.txt (pins and hashes)
# Installs come from the lock files only, with their hashes checked, so every machine gets the versions CI
# tested. Each environment is rebuilt only when its lock file changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The venv has no pip of its own (7 MB the table never uses): the machine's pip (22.3 or newer) installs
# into it with --python. No .pyc files at install: Python writes them for the modules it imports.
PIP    := $(PYTHON) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check --no-compile
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP     := $(VENV)/.installed-dev
# pytest workers (pytest-xdist): the suite's files are shared between them, each file on one worker, so
# that module fixtures (the native build, the calibrated profiles) are made once. 0 runs in this process.
PYTEST_WORKERS ?= 2
# The fast tier: everything but the tests marked slow (whole-stack, soak, native build, browser, API fuzzing,
# data-set and exhaustive runs); see docs/testing.md.
CHECK_MARKERS ?= not slow

.PHONY: demo test check lint typecheck pytest install clean bench lock train-env

# Without pip, the venv also has none of the setuptools that nothing here uses (the dev lock brings its own
# for mypyc).
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)

# The project itself goes in last and editable, without dependencies, built by the locked hatchling.
$(RUNTIME_STAMP): requirements/runtime.txt pyproject.toml | $(BIN)/python
	$(PIP) --require-hashes -r requirements/runtime.txt
	$(PIP) --no-deps --no-build-isolation -e .
	touch $@

$(DEV_STAMP): requirements/dev.txt pyproject.toml | $(BIN)/python
	$(PIP) --require-hashes -r requirements/dev.txt
	$(PIP) --no-deps --no-build-isolation -e .
	touch $@

install: $(DEV_STAMP)

demo: $(RUNTIME_STAMP)
	$(BIN)/cardtable demo $(ARGS)

test: $(DEV_STAMP) lint typecheck pytest

check: $(DEV_STAMP) lint typecheck
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile -m "$(CHECK_MARKERS)" $(PYTEST_ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check .

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# `python -m vision.train` needs the train extra: the CPU build of torch, onnx and pillow.
train-env: $(DEV_STAMP)
	$(PIP) --no-build-isolation -e '.[train]'

bench: $(DEV_STAMP)
	$(BIN)/cardtable bench $(ARGS)

# uv resolves from PyPI for Python 3.11 on this platform; the dev lock is held to the runtime lock's pins.
lock: | $(BIN)/python
	$(PIP) 'uv>=0.9,<1'
	$(BIN)/uv pip compile --quiet --no-header --generate-hashes --python-version 3.11 --upgrade \
		pyproject.toml requirements/build.in -o requirements/runtime.txt
	$(BIN)/uv pip compile --quiet --no-header --generate-hashes --python-version 3.11 --upgrade \
		pyproject.toml requirements/build.in --extra dev -c requirements/runtime.txt -o requirements/dev.txt

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
