# Two entry points (see README): `make serve` and `make test`.
# The venv is built from the interpreter `.python-version` selects (pyenv when present,
# else the newest python3.1x on PATH) and refreshed whenever pyproject.toml changes.
# The web UI (renderers/web) is built with npm when its build is missing or older than its
# sources; `serve` without npm still runs, and says at /ui how to build it.
VENV   := .venv
BOOT   := $(shell (command -v pyenv >/dev/null 2>&1 && pyenv which python 2>/dev/null) || command -v python3.13 || command -v python3.12 || command -v python3)
BIN    := $(VENV)/bin
ARGS   ?=
WEB    := renderers/web
WEB_SRC := $(shell find $(WEB)/src $(WEB)/public -type f 2>/dev/null) \
	$(wildcard $(WEB)/index.html $(WEB)/*.json $(WEB)/*.config.ts $(WEB)/*.config.js) \
	$(wildcard docs/a2a/ext/*.schema.json)
NPM    := $(shell command -v npm 2>/dev/null)

.PHONY: serve demo test lint docs clean web web-test chromium

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

$(WEB)/node_modules/.package-lock.json: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	@touch $@

# The JavaScript client example, which the browser tests run (examples/client/README.md).
examples/client/node_modules/.package-lock.json: examples/client/package-lock.json
	cd examples/client && npm ci --no-audit --no-fund
	@touch $@

$(WEB)/dist/index.html: $(WEB_SRC) $(WEB)/node_modules/.package-lock.json
	cd $(WEB) && npm run build

web:
ifeq ($(NPM),)
	@echo "npm is not on PATH: the web UI is not built; serve answers /ui with how to build it"
else
	@$(MAKE) --no-print-directory $(WEB)/dist/index.html
endif

serve: $(VENV)/.installed web
	$(BIN)/tiny-harness serve $(ARGS)

# The demo, offline (examples/demo-plugin/README.md): a second harness, the agent `shop`
# of examples/two-harnesses, on port 8090 (its log in .tiny-harness/shop-agent.log), then
# the demo plugin on its script on port 8080, which may delegate to it. PATH first: the
# plugin's MCP servers run `python`, which needs the venv's `mcp`. Ctrl+C stops both.
DEMO_SHOP := http://127.0.0.1:8090
demo: $(VENV)/.installed web
	@mkdir -p .tiny-harness
	@$(BIN)/tiny-harness serve --config examples/two-harnesses/child.toml \
	    --data-dir .tiny-harness/shop-agent > .tiny-harness/shop-agent.log 2>&1 & \
	  shop=$$!; trap 'kill $$shop 2>/dev/null' EXIT; \
	  for _ in $$(seq 150); do \
	    $(BIN)/python -c "import urllib.request as r; r.urlopen('$(DEMO_SHOP)/healthz')" 2>/dev/null && break; \
	    sleep 0.2; \
	  done; \
	  echo "demo: open http://127.0.0.1:8080/ui/ (web UI), or run .venv/bin/tiny-harness tui --as alice;" && \
	  echo "      http://127.0.0.1:8233 is the Temporal UI. Send 'Order team shirts for the offsite, 40 people.'" && \
	  echo "      or 'Ask the shop agent for one shirt' (delegated to the agent on $(DEMO_SHOP))." && \
	  PATH="$(CURDIR)/$(BIN):$$PATH" TINY_HARNESS_TEMPORAL__UI=true \
	  TINY_HARNESS_PLUGINS=examples/demo-plugin \
	  TINY_HARNESS_MODEL__SCRIPT=examples/demo-plugin/script.yaml \
	  TINY_HARNESS_AGENTS='[{"id": "shop", "url": "$(DEMO_SHOP)"}]' \
	  TINY_HARNESS_SERVER__BASE_URL=http://127.0.0.1:8080 \
	  $(BIN)/tiny-harness serve $(ARGS)

# The browser tests drive Debian's chromium; as root (CI) it is installed when missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } || \
	  { echo "chromium is needed for the web UI's browser tests: apt-get install -y chromium"; exit 1; }

web-test: $(VENV)/.installed-dev $(WEB)/node_modules/.package-lock.json \
	  examples/client/node_modules/.package-lock.json chromium
	cd $(WEB) && npm run typecheck && npm run lint && npm test && npm run build && npm run e2e

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python .ci/shape.py tiny_harness

# The documentation site, strictly: a broken link, page or anchor fails (docs/README.md).
# Material's notice of its end of life is said once, in docs/README.md, not at every build.
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test: lint docs
	$(BIN)/pytest $(ARGS)
	@$(MAKE) --no-print-directory web-test

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(WEB)/node_modules $(WEB)/dist
