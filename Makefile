# Two commands on a fresh machine: `make run` (install + launch) and `make test`.
# `make run` installs only what the app needs; `make test` adds the test extras (linters, a
# llama.cpp server and a small model) on top.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
APP_STAMP := $(VENV)/.app-installed
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(APP_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $(APP_STAMP)

$(STAMP): $(APP_STAMP)
	$(BIN)/pip install -q -e '.[dev,llm-test]'
	touch $(STAMP)

run: $(APP_STAMP)
	$(BIN)/agent-tui $(ARGS)

# Lint, format and types are checked before the tests, so CI (which runs this target) enforces them.
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
