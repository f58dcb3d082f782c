# Tourney: `make run` (the whole system on the embedded PostgreSQL) and `make test`;
# `make test-shifted` runs the suite again with every process's clock a year ahead (CI runs both).
# Both set themselves up from the project's own files on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TOURNEY := $(BIN)/tourney
# `make run DEMO=0` (or TOURNEY_DEMO=0 in the environment): serve without seeding or simulating the demo
DEMO ?= $(if $(TOURNEY_DEMO),$(TOURNEY_DEMO),1)

.PHONY: run test soak test-unit test-shifted bench stop setup db clean catalogs screenshots

$(VENV)/.installed: pyproject.toml
	bash infra/setup-system.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# uv (from PyPI) installs the pinned ranges of pyproject.toml in a third of pip's time
	$(BIN)/pip install --quiet --disable-pip-version-check 'uv>=0.5,<1'
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode -e '.[dev]'
	$(BIN)/python -m compileall -q domain flows infra  # every `tourney` starts from bytecode, whatever PYTHONDONTWRITEBYTECODE says
	# openapi-python-client (a client generated from /api/v1's document, tests/web/test_api_client.py) in a
	# virtualenv of its own: its typer and httpx bounds are not the project's
	test -x $(VENV)/tools/bin/python || $(BIN)/uv venv -q $(VENV)/tools --python $(BIN)/python
	$(BIN)/uv pip install --quiet --python $(VENV)/tools/bin/python 'openapi-python-client>=0.29,<0.30'
	touch $@

setup: $(VENV)/.installed

db: setup
	$(TOURNEY) db up
	$(TOURNEY) db upgrade

# the web app before the demo's simulator: on the wall clock it plays the demo through /api/v1, at the
# public address, which follows TOURNEY_WEB_PORT unless TOURNEY_PUBLIC_URL is given
WEB_PORT = $(or $(TOURNEY_WEB_PORT),8080)
run: export TOURNEY_PUBLIC_URL ?= http://127.0.0.1:$(WEB_PORT)
run: db
	$(TOURNEY) server up
	$(TOURNEY) web --background --port $(WEB_PORT)
	@if [ "$(DEMO)" != "0" ]; then $(TOURNEY) simulate --demo --background; fi
	$(TOURNEY) serve --limit $${TOURNEY_SERVE_LIMIT:-4}

# the budget: 480 s wall on 2 cores (docs/testing.md); the long proofs are `make soak`
# three pytest-xdist workers on 2 cores, each idle test's wait (a browser, a wall clock, a process
# starting) filled by another's work; a worker that runs dry steals from the others (docs/testing.md)
SUITE = tests -m "not soak" -n 3 --dist worksteal --durations=15

test: setup
	@start=$$(date +%s); $(TOURNEY) db up && $(BIN)/pytest $(SUITE); status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s wall (budget 480 s)"; exit $$status

# the long proofs: workers killed mid-run, 20 timekeeper failovers, every bad input through a real process
soak: setup
	$(TOURNEY) db up
	$(BIN)/pytest tests -m soak --durations=15

# the pure rules alone: no database, no Prefect (seconds)
test-unit: setup
	$(BIN)/pytest tests/unit -m "not integration and not flows"

# FAKETIME=+730d moves the clock by another offset; the cluster is .tourney/shifted (infra/test-shifted.sh)
test-shifted: setup
	bash infra/setup-system.sh
	bash infra/test-shifted.sh $(SUITE)

bench: db
	$(BIN)/python -m bench

stop: setup
	$(TOURNEY) stop
	-TOURNEY_HOME=$(CURDIR)/.tourney/shifted $(TOURNEY) db stop

# the documents' gettext catalogs (DOC-4): extract with Babel (babel.cfg), merge into each language's
# templates/locale/<lang>/LC_MESSAGES/messages.po, compile the .mo files (committed)
catalogs: setup
	$(BIN)/python -m infra.catalogs

# a PNG of each public page (docs/pictures/web/, shown in docs/web.md) from a world built on a throwaway
# database, taken with Debian's headless Chromium (tests/web/screenshots.py)
screenshots: db
	$(BIN)/python -m tests.web.screenshots

# deletes the database, the outbox and the signing key: asks first (FORCE=1 does not ask)
clean: setup
	@if [ "$(FORCE)" != "1" ]; then read -r -p "delete the database, outbox and signing key in .tourney? [y/N] " a; [ "$$a" = y ] || { echo "kept"; exit 1; }; fi
	$(TOURNEY) stop
	rm -rf "$$($(BIN)/python -c 'from infra.config import load_settings; from infra.cluster import Cluster; print(Cluster(load_settings().home).base)')" .tourney
