# Set-up and entry points. Every target installs what it needs into .venv first.
PYTHON ?= python3
VENV ?= .venv
WORK_DIR ?= work-dir
PY := $(VENV)/bin/python

.PHONY: setup test fixture calibration bench lint

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	# The CPU build of torch first: an unpinned torch would pull a multi-GB CUDA build.
	$(VENV)/bin/pip install --quiet -c constraints.txt torch==2.13.0
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[local,dev]'
	touch $@

setup: $(VENV)/.installed

# The test command (README): the default suite on tiny fixtures, in parallel.
test: setup
	$(PY) -m pytest -n auto

# Build (or reuse) the SciFact corpus fixture. Set SCIFACT_ARCHIVE to use a local scifact.zip.
fixture: setup
	$(PY) -m harness build --out $(WORK_DIR)/scifact-corpus.json --work-dir $(WORK_DIR)

# The main job: the calibration evaluation of all three modes on the embedded defaults.
calibration: setup
	$(PY) -m pytest -m calibration -p no:xdist --work-dir=$(abspath $(WORK_DIR))

# The benchmark suite on the real data (README, "Benchmarks"): ratios against same-run baselines, JSON in .benchmarks/.
bench: setup
	$(PY) -m pytest -m benchmark -p no:xdist --benchmark-autosave --work-dir=$(abspath $(WORK_DIR))

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
