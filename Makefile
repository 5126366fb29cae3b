# Two commands on a fresh machine: `make run` (install + launch) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean sandbox-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,llm-test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/agent-tui $(ARGS)

# The sandbox tests run against the real bubblewrap: install it where the machine allows (root or
# passwordless sudo, with apt). Never fails the run: without bwrap those tests say why, once.
sandbox-deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; \
	  if command -v apt-get >/dev/null 2>&1 && { [ -z "$$SUDO" ] || sudo -n true 2>/dev/null; }; then \
	    echo "installing bubblewrap for the sandbox tests"; \
	    ($$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq bubblewrap) \
	      >/dev/null 2>&1 || echo "note: could not install bubblewrap; the sandbox tests will say why"; \
	  else echo "note: bwrap is missing and cannot be installed here; the sandbox tests will say why"; fi; \
	}; true

# Lint, format and types are checked before the tests, so CI (which runs this target) enforces them.
test: $(STAMP) sandbox-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
