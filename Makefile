# rlaccel: `make demo` sets up .venv and runs the main job; `make test` sets up and runs the tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
OUT    := out

.PHONY: demo test venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

# The main job: train cart-pole on the simulated ADHDP accelerator (Q6.18, 4 lanes, 175 MHz)
# and report cycles, energy, per-iteration splits and the learning curve; the JSON report and
# a Chrome/Perfetto trace land in out/.
demo: venv
	@mkdir -p $(OUT)
	$(PY) -m rlaccel run machines/adhdp/programs/cartpole.toml --json $(OUT)/cartpole.json --trace $(OUT)/cartpole.trace.json

test: venv
	bash rtl/tools/setup.sh $(PY)   # Icarus, Verilator, Yosys and MyHDL's VPI module for the RTL tests
	$(PY) -m pytest -n 2 --durations=20   # both cores (pytest-xdist); the slowest tests listed

clean:
	rm -rf $(OUT) .pytest_cache
