# gradtutor — `make tutor` to learn, `make test` to run every test, `make test-fast` for the quick ones.
# Both create .venv at the repo root and install what they need into it.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
BIN    := $(VENV)/bin
WORKSPACE ?= workspace

.PHONY: tutor test test-fast lint bench sweep docs serve lessons browser hub clean help

help:
	@echo "make tutor   set up, create ./$(WORKSPACE) with the lessons, show your progress, open JupyterLab (GRADTUTOR_NO_LAB=1: don't)"
	@echo "make test    set up, lint (ruff) and run every test (unit, notebooks, nbgrader, docs in a browser)"
	@echo "make test-fast  the unit tier alone: no TensorFlow, nbgrader or browser; under 2 minutes"
	@echo "make lint    ruff check"
	@echo "make bench   speed and memory figures, as ratios measured side by side"
	@echo "make sweep   every known answer on 200 random hidden seeds per lesson, as a course draws them"
	@echo "make docs    build the docs site (strict);  make serve  serves it on 127.0.0.1:8000"
	@echo "make lessons regenerate lessons/ from solutions/ with nbgrader"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The learner's install: the package and what running a lesson needs.
$(VENV)/.tutor: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

# Everything the tests touch: nbgrader, the docs toolchain, Keras 2 for lesson 4's demonstration.
$(VENV)/.dev: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[classroom,docs,legacy,test,hub]'
	touch $@ $(VENV)/.tutor

# Ends in JupyterLab on the workspace (127.0.0.1, Ctrl-C stops it); GRADTUTOR_NO_LAB=1 make tutor
# installs the course's kernel and the workspace and starts nothing (scripted set-ups, CI).
tutor: $(VENV)/.tutor
	@test -d $(WORKSPACE) || $(BIN)/gradtutor init $(WORKSPACE)
	@cd $(WORKSPACE) && ../$(BIN)/gradtutor list
	@echo "Then, in a terminal: cd $(WORKSPACE) && ../$(BIN)/gradtutor check lesson1"
	@$(BIN)/gradtutor lab $(WORKSPACE)

# Debian's Chromium for the docs browser test (a browser that downloads itself cannot work here),
# with a CJK font for the Chinese pages (without one Chromium draws the characters as boxes),
# and npm, which fetches the docs' mermaid and KaTeX from the npm registry.
browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	@fc-list :lang=zh | grep -q . || (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk >/dev/null)
	@command -v npm >/dev/null || (apt-get update -qq && apt-get install -y -qq npm >/dev/null)

# tests/classroom/test_hub.py: JupyterHub's proxy (configurable-http-proxy, from the npm registry, pinned) and
# Debian's Python 3, which the test's local accounts run their servers and kernels on (this venv's
# Python may sit where only root can read, such as a pyenv under /root); useradd comes with Debian.
# Debian 12's Python (3.11.2) mis-compiles the possessive quantifiers soupsieve 3 and later use, so
# nbconvert's HTML export, and with it `nbgrader generate_feedback`, fails there
# (SelectorSyntaxError on `img:not([alt])`): those accounts get soupsieve 2 first on their path.
HUB_PROXY := build/hub/node_modules/.bin/configurable-http-proxy
HUB_SITE  := build/hub/site-debian-python
hub: browser $(VENV)/.dev
	@test -x /usr/bin/python3 || (apt-get update -qq && apt-get install -y -qq python3 >/dev/null)
	@test -x $(HUB_PROXY) || npm install --silent --no-audit --no-fund --prefix build/hub configurable-http-proxy@5.3.0 >/dev/null
	@test -d $(HUB_SITE)/soupsieve || $(PY) -m pip install --quiet --no-deps --target $(HUB_SITE) 'soupsieve>=2.5,<3'

lint: $(VENV)/.dev
	$(BIN)/ruff check .

# --durations: the slowest tests are named at the end of every run, so the suite's time budget can be watched.
# --no-loadscope-reorder: xdist hands out the groups in collection order, the longest first (tests/support/schedule.py).
test: lint browser hub
	PATH="$(CURDIR)/$(BIN):$$PATH" $(PY) -m pytest -n 2 --dist loadgroup --no-loadscope-reorder -q --durations=15

# The unit tier (tests/conftest.py explains the tiers). Serial: its tests mostly wait on short
# subprocesses, and two xdist workers cost more to start than they save on 2 cores.
test-fast: $(VENV)/.dev
	PATH="$(CURDIR)/$(BIN):$$PATH" $(PY) -m pytest -m unit -q

bench: $(VENV)/.dev
	PATH="$(CURDIR)/$(BIN):$$PATH" $(PY) -m benchmarks.run

# Every known answer (each lesson's answers.toml) through the real checker on 200 hidden seeds per lesson drawn
# from a new random secret, as a course draws them: correct answers pass on all, wrong ones fail.
# Minutes; the tf tier runs a slice of it (tests/dev/test_sweep.py).
sweep: $(VENV)/.dev
	PATH="$(CURDIR)/$(BIN):$$PATH" $(PY) -m gradtutor.dev.sweep --seeds 200

# The lesson pages run each solutions notebook (cached in build/docs-cache/ by content hash);
# mermaid and KaTeX come once from the npm registry (pinned, checksummed) into that cache.
docs: $(VENV)/.dev browser
	PATH="$(CURDIR)/$(BIN):$$PATH" NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

serve: $(VENV)/.dev browser
	PATH="$(CURDIR)/$(BIN):$$PATH" NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve -a 127.0.0.1:8000

lessons: $(VENV)/.dev
	PATH="$(CURDIR)/$(BIN):$$PATH" $(PY) -m gradtutor.dev.release

clean:
	rm -rf site build dist test-output .pytest_cache
