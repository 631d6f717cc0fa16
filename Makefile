# Two commands on a fresh machine:  make book  (build the site)  and  make test  (run the tests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SITE   := _build/html
LAB_STAMP := $(VENV)/.lab-installed
GPU_STAMP := $(VENV)/.gpu-installed
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
HAS_NVIDIA_DRIVER := $(shell command -v nvidia-smi >/dev/null 2>&1 && echo yes)
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)


.PHONY: book test lab lab-install gpu-deps doctor gpu-test record record-shapes record-exercises sass configs notebooks clean browser-deps help python-version

help:
	@echo "make book      - build the HTML site into $(SITE) (creates $(VENV) first)"
	@echo "make test      - CPU test suite, including the built site in Chromium"
	@echo "make lab       - JupyterLab with the chapters as notebooks (GPU machine: also installs CUDA libraries)"
	@echo "make doctor    - can this machine run the kernels? what is missing, and the command that fixes it"
	@echo "make gpu-test  - GPU test suite and compute-sanitizer (GPU machine)"
	@echo "make record    - re-record book/data/benchmarks.json on this GPU"
	@echo "make record-shapes - re-record book/data/shapes.json (every level and cuBLAS on the shape zoo) on this GPU"
	@echo "make record-exercises - check every exercise's solution and wrong attempts on this GPU (book/data/exercises.json)"
	@echo "make configs   - each GPU's configuration of every kernel (no GPU needed); DEVICE=T4 for one"
	@echo "make notebooks - every chapter as a Jupyter notebook (.ipynb) in notebooks/ (committed: Colab opens it from GitHub; JupyterHubs)"

# The course needs Python 3.11 or newer (pyproject.toml's requires-python; the pinned NumPy has no 3.10 wheel).
python-version:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { \
	  echo "Python 3.11 이상이 필요합니다 (지금: $$($(PYTHON) --version 2>&1)). 예: make PYTHON=python3.11 book"; exit 1; }

$(STAMP): requirements.txt pyproject.toml | python-version
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# _toc.yml's modules part is written from course/syllabus.py first (python -m course toc).
# Chapters execute while the site is built (execute_notebooks: inline), and --all re-reads every page:
# Sphinx would otherwise re-read only pages whose source changed, and a page whose data, bank or
# kernel changed would keep its old numbers.
# The chapters are also written as .ipynb into book/_static/notebooks (copied into the site, linked from
# book/start/colab_hub.md) for Colab and JupyterHubs, as plain Markdown with the numbers filled in
# (course/notebook/export.py); _config.yml's repository.url (or COURSE_REPO_URL) goes into their install cell.
book: $(STAMP)
	$(PY) -m course toc
	$(PY) tools/export_notebooks.py
	COURSE_STATIC=1 $(VENV)/bin/jupyter-book build . --all --warningiserror --keep-going --quiet
	@echo "site: $(SITE)/index.html"

browser-deps:
	@bash tools/ensure_browser.sh

# The tests include JupyterLab in Chromium (tests/test_lab_browser.py), so they need the lab packages too.
test: book browser-deps $(LAB_STAMP)
	$(PY) -m pytest -q

# JupyterLab, jupytext (chapters open as notebooks) and jupyterlab-myst (their MyST renders, {eval} numbers too).
$(LAB_STAMP): $(STAMP) requirements-lab.txt tools/lab_overrides.json
	$(PY) -m pip install --quiet -r requirements-lab.txt
	mkdir -p $(dir $(LAB_OVERRIDES))
	cp tools/lab_overrides.json $(LAB_OVERRIDES)
	touch $(LAB_STAMP)

# CUDA libraries CuPy loads from the system (cuBLAS): a driver-only GPU machine gets them from pip.
$(GPU_STAMP): $(STAMP) requirements-gpu.txt
	$(PY) -m pip install --quiet -r requirements-gpu.txt
	touch $(GPU_STAMP)

lab-install: $(LAB_STAMP) $(if $(HAS_NVIDIA_DRIVER),$(GPU_STAMP))

gpu-deps: $(GPU_STAMP)

doctor: $(STAMP)
	@$(PY) -m kernels doctor

# Chapters (book/*.md, MyST notebooks) open as notebooks: double-click one in the file browser.
lab: lab-install
	@$(if $(HAS_NVIDIA_DRIVER),$(PY) -m kernels doctor || true,echo "GPU 드라이버가 없어 기록된 결과로 실행합니다 (no NVIDIA driver: recorded results)")
	$(VENV)/bin/jupyter lab --notebook-dir=. $(AS_ROOT)

# Only the files that hold GPU tests are collected, so the command also runs with a bare Python that has
# CuPy and pytest but not the book's packages (e.g. a lent GPU machine without internet).
GPU_TESTS := tests/test_kernels_gpu.py tests/test_exercise_gpu.py tests/test_doctor.py tests/test_level7_gpu.py

gpu-test: $(GPU_STAMP)
	CUPY_TF32=0 $(PY) -m pytest -m gpu -q $(GPU_TESTS)
	for tool in memcheck racecheck synccheck; do \
	  compute-sanitizer --tool $$tool --error-exitcode 3 $(PY) tools/gpu_sanitize.py > /dev/null || exit 1; \
	  compute-sanitizer --tool $$tool --error-exitcode 3 $(PY) tools/sanitize_level7.py > /dev/null || exit 1; \
	  echo "compute-sanitizer $$tool: clean"; \
	done

record: $(GPU_STAMP)
	CUPY_TF32=0 $(PY) -m kernels record

# Level 7's shape zoo: every level and cuBLAS on the zoo's shapes (kernels/level7_model.ZOO; book/data/shapes.json).
record-shapes: $(GPU_STAMP)
	CUPY_TF32=0 $(PY) tools/record_shapes.py

record-exercises: $(GPU_STAMP)
	CUPY_TF32=0 $(PY) tools/record_exercises.py

sass: $(STAMP)
	$(PY) -m kernels sass

DEVICE ?= all
configs: $(STAMP)
	$(PY) -m kernels configs --device $(DEVICE)

# notebooks/ is committed (Colab opens it from GitHub; tests/test_notebook_export.py checks it matches the chapters).
notebooks: $(STAMP)
	$(PY) tools/export_notebooks.py --out notebooks

clean:
	rm -rf _build
