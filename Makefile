# Quick start: `make book` builds the HTML book, `make test` runs every test.
# Both create the virtual environment in .venv from the exact pins first.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Warnings from the kernel name the cell this way in the reference run and in the tests alike.
export IPYKERNEL_CELL_NAME := <IPY-INPUT>

CHAPTERS_MD := $(wildcard chapters/*.md)
LIBRARY := $(wildcard d2l_local/*.py d2l_local/*.js d2l_local/trained/manifest.json) pyproject.toml
# What ruff lints and format-checks in 'make test' (settings in pyproject.toml).
PYTHON_SOURCES := d2l_local tests tools _ext
# The GitHub Actions workflows: publish the book, run the tests (make test
# lints them with actionlint).
WORKFLOWS := $(wildcard .github/workflows/*.yml)
# How nbval compares each chapter with its reference notebook.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# Test files (each notebook whole) spread over up to 4 processes, one
# thread each: kernels with two threads on a shared core spin against
# each other (order_experiment's first cell took 612 s that way, 19 s
# alone).
WORKERS := -n auto --maxprocesses=4 --dist loadfile
ONE_THREAD := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Another machine has another CPU: imitate one with torch's, MKL's and
# oneDNN's generic code paths and one thread, so that an output that depends
# on the instruction set or the thread count fails here, before it lands.
GENERIC_CPU := ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE ONEDNN_MAX_CPU_ISA=SSE41 \
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

.PHONY: book test chromium nbval nbval-generic bench references setup-cell models clean clean-all

$(BIN)/.book-env: requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python tools/fetch_katex.py
	touch $@

$(BIN)/.test-env: $(BIN)/.book-env requirements-test.txt requirements-oracle.txt requirements-ipywidgets7.txt
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-oracle.txt
	rm -rf $(VENV)/ipywidgets7
	$(BIN)/python -m pip install --quiet --no-deps --target $(VENV)/ipywidgets7 \
		-r requirements-ipywidgets7.txt
	touch $@

# jupyter-cache re-runs a notebook only when its own text changes, and Sphinx
# re-reads a page only then; a change to d2l_local or to the pins must re-run
# and re-render them all, so it clears the cache and Sphinx's saved pages.
_build/.library-stamp: $(LIBRARY) requirements.txt
	rm -rf _build/.jupyter_cache _build/.doctrees _build/jupyter_execute _build/html
	mkdir -p _build
	touch $@

# Sphinx re-renders a page only when its source changes: a change to the book's
# extension or static files must re-render them all, so it clears the HTML.
_build/.html-stamp: $(wildcard _ext/*.py _static/*) _config.yml _toc.yml
	rm -rf _build/html _build/.doctrees
	mkdir -p _build
	touch $@

# prime_cache.py executes the chapters into jupyter-cache in parallel (the build
# alone would run them one by one); the build then takes them from the cache.
book: $(BIN)/.book-env _build/.library-stamp _build/.html-stamp
	$(BIN)/python tools/prime_cache.py _build/.jupyter_cache $(CHAPTERS_MD)
	$(BIN)/jupyter-book build . --builder html -W -n --keep-going
	@echo "Book built: open _build/html/index.html"

# The browser tests drive Debian's Chromium: installed here when missing and
# this user may (root); otherwise make stops with the command to run.
chromium:
	@tools/ensure_chromium.sh

# The tests read the built HTML too, so the book is (re)built first. Then ruff
# lints the Python sources and checks their formatting (79 columns), and
# actionlint the workflows.
test: chromium $(BIN)/.test-env book
	$(BIN)/ruff check $(PYTHON_SOURCES)
	$(BIN)/ruff format --check $(PYTHON_SOURCES)
	$(BIN)/actionlint $(WORKFLOWS)
	$(BIN)/python tools/setup_cell.py --check
	$(ONE_THREAD) $(BIN)/python -m pytest tests chapters $(NBVAL) $(WORKERS) --durations=25
	$(MAKE) --no-print-directory nbval-generic

# nbval alone: re-run every chapter and compare it with its reference notebook.
nbval: $(BIN)/.test-env
	$(BIN)/python -m pytest chapters $(NBVAL)

# The same comparison on the generic CPU code paths with one thread.
nbval-generic: $(BIN)/.test-env
	$(GENERIC_CPU) $(BIN)/python -m pytest chapters $(NBVAL)

# Benchmark report (minutes): cold and warm build, nbval, make test, live
# control redraw times in a kernel, page weights. Prints; never fails on a target.
bench: $(BIN)/.test-env
	$(BIN)/python tools/bench.py

# Regenerate the executed reference notebooks (what Colab opens and nbval
# compares) by executing each chapter whole from its MyST source.
references: $(BIN)/.book-env
	$(BIN)/python tools/execute_reference.py $(CHAPTERS_MD)

# Train, score and store the language models of pages 9 and 10 into
# d2l_local/trained (a one-off, run when the code that trains them changes;
# never part of `make book`): see tools/train_models.py.
models: $(BIN)/.book-env
	$(BIN)/python tools/train_models.py

# Rewrite the Colab setup cell of every chapter from repository.url in _config.yml.
setup-cell: $(BIN)/.book-env
	$(BIN)/python tools/setup_cell.py --write

clean:
	rm -rf _build

clean-all: clean
	rm -rf $(VENV)
