# Set-up and entry points. Every target installs what it needs into .venv first.
PYTHON ?= python3
VENV ?= .venv
WORK_DIR ?= work-dir
PY := $(VENV)/bin/python

# Bytecode, where Python keeps it (__pycache__/, ignored by git): pip installs without compiling (--no-compile: it
# compiles every file of torch and transformers one at a time, about half a fresh set-up), then the set-up compiles
# the venv on every core (compileall -j 0), so commands typed outside make find it too; and make's commands write the
# bytecode of what they import even where PYTHONDONTWRITEBYTECODE is set, or every process the suite starts would
# compile every module it imports from source again.
unexport PYTHONDONTWRITEBYTECODE
# compileall exits 1 for the few files in the installed packages that are not Python 3 (test data), as pip ignores.
COMPILE_VENV = $(VENV)/bin/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true

RESULTS ?= $(WORK_DIR)/results
COMPARE_FLAGS ?=
REPORT_FLAGS ?=

.PHONY: setup setup-milvus setup-all test fixture calibration report bench bench-scale lint dist

# PyTorch's CPU wheel index by default (a stock machine would otherwise get a multi-GB CUDA build); set TORCH_INDEX to
# another index, or empty for the configured one. When it does not answer, the configured index is used, saying so.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
# The default install: the harness, the embedded model, the example system, the report's plots and the tests' tools.
# Milvus (make setup-milvus), the exports' readers (interop) and the linters (lint) are extras installed on demand.
SETUP_EXTRAS := local,examples,report,test

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --no-compile -c constraints.txt $$($(PYTHON) scripts/torch_index.py $(TORCH_INDEX)) torch==2.13.0
	$(VENV)/bin/pip install --quiet --no-compile -c constraints.txt -e '.[$(SETUP_EXTRAS)]'
	$(COMPILE_VENV)
	touch $@

setup: $(VENV)/.installed

$(VENV)/.installed-%: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet --no-compile -c constraints.txt -e '.[$(SETUP_EXTRAS),$(subst +,$(comma),$*)]'
	$(COMPILE_VENV)
	touch $@

comma := ,
# Milvus as a system under test (Milvus Lite embedded, or a server by URI): `--system milvus`.
setup-milvus: $(VENV)/.installed-milvus
# Every extra: what CI installs.
setup-all: $(VENV)/.installed-milvus+interop+lint+bench

# The test command (README.md): the default suite on tiny fixtures, in parallel.
test: setup
	$(PY) -m pytest -n auto

# The wheel and the sdist, in dist/ (python -m build, in an isolated build environment). Install either into another
# repository's venv with scripts/install_into.py --wheel (README: "The suite in your own repository").
dist: setup
	$(VENV)/bin/pip install --quiet -c constraints.txt build
	rm -rf dist
	$(PY) -m build --outdir dist .
	rm -rf build scifact_harness.egg-info

# Build (or reuse) the SciFact corpus fixture. Set SCIFACT_ARCHIVE to use a local scifact.zip.
fixture: setup
	$(PY) -m harness build --out $(WORK_DIR)/scifact-corpus.json --work-dir $(WORK_DIR)

# The main job: the calibration evaluation of all three modes on the embedded defaults (only the suite is collected,
# not the whole test tree, which would add seconds).
calibration: setup
	$(PY) -m pytest -m calibration -p no:xdist --scifact-work-dir=$(abspath $(WORK_DIR)) harness/suite

# The report of $(RESULTS): each split with all three modes and no comparison yet is compared first, then the HTML
# report (and report.md) is written from validated artifacts; the last line is the HTML file's path.
report: setup
	@for split in calibration heldout all; do \
	  if [ -f $(RESULTS)/scifact-fts_only-$$split.aggregate.json ] && [ -f $(RESULTS)/scifact-vector_only-$$split.aggregate.json ] \
	     && [ -f $(RESULTS)/scifact-hybrid-$$split.aggregate.json ] && [ ! -f $(RESULTS)/scifact-comparison-$$split.json ]; then \
	    $(PY) -m harness compare --output-dir $(RESULTS) --split $$split $(COMPARE_FLAGS) || exit $$?; \
	  fi; \
	done
	$(PY) -m harness report --output-dir $(RESULTS) --out $(RESULTS)/report.html --replace $(REPORT_FLAGS)
	@echo "$(abspath $(RESULTS))/report.html"

# The benchmark suite on the real data (docs/benchmarks.md): ratios against same-run baselines, JSON in .benchmarks/.
bench: setup
	$(PY) -m pytest -m benchmark -p no:xdist --benchmark-autosave --scifact-work-dir=$(abspath $(WORK_DIR))

# Cost curves at scale (docs/scale.md): synthetic corpora, both systems built, opened and searched, the validator's
# replay; figures and stores in $(WORK_DIR)/scale, the table and plot rewritten in docs/.
SCALE_SIZES ?= 10000 100000 1000000
SCALE_FLAGS ?=
bench-scale: setup
	$(PY) -m benchmarks.scale --sizes $(SCALE_SIZES) --out $(WORK_DIR)/scale --docs docs $(SCALE_FLAGS)

lint: $(VENV)/.installed-lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
