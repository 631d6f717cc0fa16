# Two commands on a fresh machine:  make book  (build the site)  and  make test  (run the tests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SITE   := _build/html

.PHONY: book test lab gpu-test record sass clean clean-cache browser-deps help

help:
	@echo "make book      - build the HTML site into $(SITE) (creates $(VENV) first)"
	@echo "make test      - CPU test suite, including the built site in Chromium"
	@echo "make lab       - JupyterLab with the chapters as notebooks (GPU machine)"
	@echo "make gpu-test  - GPU test suite and compute-sanitizer (GPU machine)"
	@echo "make record    - re-record book/data/benchmarks.json on this GPU"

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# Executed notebooks are cached by their code only; when the recorded data, the kernels or the
# libraries the chapters call change, the cache is dropped so that no page shows stale results.
# Sphinx's doctrees go too: it re-reads a page only when its source changed, so without this the
# old outputs (e.g. a quiz from an edited bank) would be written again.
CACHE_DEPS := $(wildcard book/data/*.json kernels/*.py kernels/*.cu kernels/*.cuh sims/*.py course/*.py course/banks/*.yaml)
CACHE_STAMP := _build/.cache-inputs

$(CACHE_STAMP): $(CACHE_DEPS)
	rm -rf _build/.jupyter_cache _build/.doctrees
	mkdir -p _build
	touch $@

book: $(STAMP) $(CACHE_STAMP)
	COURSE_STATIC=1 $(VENV)/bin/jupyter-book build . --warningiserror --keep-going --quiet
	@echo "site: $(SITE)/index.html"

browser-deps:
	@bash tools/ensure_browser.sh

test: book browser-deps
	$(PY) -m pytest -q

LAB_STAMP := $(VENV)/.lab-installed
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

$(LAB_STAMP): $(STAMP) requirements-lab.txt
	$(PY) -m pip install --quiet -r requirements-lab.txt
	mkdir -p $(dir $(LAB_OVERRIDES))
	cp tools/lab_overrides.json $(LAB_OVERRIDES)
	touch $(LAB_STAMP)

# Chapters (book/*.md, MyST notebooks) open as notebooks through jupytext.
lab: $(LAB_STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=.

gpu-test: $(STAMP)
	CUPY_TF32=0 $(PY) -m pytest -m gpu -q
	for tool in memcheck racecheck synccheck; do \
	  compute-sanitizer --tool $$tool --error-exitcode 3 $(PY) tools/gpu_sanitize.py > /dev/null || exit 1; \
	  echo "compute-sanitizer $$tool: clean"; \
	done

record: $(STAMP)
	CUPY_TF32=0 $(PY) -m kernels record

sass: $(STAMP)
	$(PY) -m kernels sass

clean-cache:
	rm -rf _build/.jupyter_cache

clean:
	rm -rf _build
