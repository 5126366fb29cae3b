# Two commands on a fresh machine: `make run` (install + launch) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,llm-test]'
	touch $(STAMP)

run: $(STAMP)
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
