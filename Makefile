# Two commands: `make demo` and `make test`. Each creates .venv if missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# torch is pinned: 2.13.0 is a local CPU wheel here; an open range pulls a multi-GB CUDA build.
TORCH  := torch==2.13.0
# `make metal` needs the GPUs the caller sees; every other target is hermetic (no GPU).
CVD_ORIGIN := $(origin CUDA_VISIBLE_DEVICES)
CVD_CALLER := $(CUDA_VISIBLE_DEVICES)
export CUDA_VISIBLE_DEVICES :=
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: demo test lint setup clean bench metal metal-wheels sglang-env

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[dev]" -e examples/tp_scheduler
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/deskcheck sweep

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 --dist loadgroup -q --durations=15
	# Self-proof: deskcheck sweeps its own catalog; every self-mutant must be KILLED by its owner.
	$(VENV)/bin/deskcheck sweep --catalog tests/mutants.toml --no-store

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) bench/run_all.py

# The SGLang proving ground (bench/sglang_env.py): SGLang 0.5.23 importable on CPU, from the
# pinned lists in bench/; the venv goes to bench/_work/sglang-env (SGLANG_ENV_ARGS="--dir DIR").
# CUDA_VISIBLE_DEVICES is unset for it: SGLang's test utilities fail at import when it is "".
# `make test` never needs it.
sglang-env:
	env -u CUDA_VISIBLE_DEVICES $(PYTHON) bench/sglang_env.py $(SGLANG_ENV_ARGS)

# The METAL tier on a lent GPU machine (docs/suites.md, METAL): no venv, no network; the
# machine's python3 with .whl/ carried. METAL_ARGS=--dry-run says what would run and why not.
metal:
	$(if $(filter environment command line,$(CVD_ORIGIN)),CUDA_VISIBLE_DEVICES='$(CVD_CALLER)',env -u CUDA_VISIBLE_DEVICES) .ci/metal $(METAL_ARGS)

# The pinned wheels (.ci/metal-wheels.toml) the GPU machine lacks, for Python 3.12, into .whl/.
metal-wheels:
	$(PYTHON) bench/metal.py --download-wheels

clean:
	rm -rf $(VENV) .deskcheck build *.egg-info
