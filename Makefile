# Two entry points (see README): `make serve` and `make test`.
# The venv is built from the interpreter `.python-version` selects (pyenv when present,
# else the newest python3.1x on PATH) and refreshed whenever pyproject.toml changes.
VENV   := .venv
BOOT   := $(shell (command -v pyenv >/dev/null 2>&1 && pyenv which python 2>/dev/null) || command -v python3.13 || command -v python3.12 || command -v python3)
BIN    := $(VENV)/bin
ARGS   ?=

.PHONY: serve test lint clean

$(BIN)/python:
	@$(BOOT) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else "tiny-harness needs Python >= 3.12; found " + sys.version)'
	$(BOOT) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/tiny-harness serve $(ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
