# rlaccel: `make demo` sets up .venv and runs the main job; `make test` sets up and runs the tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
OUT    := out

.PHONY: demo test venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

# The main job. Until the simulator lands: assemble every ADHDP program, report how much of
# the 240-byte instruction memory each uses, print the Fig. 2 listing and round-trip it
# through the disassembler.
demo: venv
	@mkdir -p $(OUT)
	@for s in programs/adhdp/*.s; do \
	  $(PY) -m rlaccel asm $$s -o $(OUT)/$$(basename $$s .s).rlb || exit 1; done
	$(PY) -m rlaccel asm programs/adhdp/cartpole.s -o $(OUT)/cartpole.rlb --listing $(OUT)/cartpole.lst
	@cat $(OUT)/cartpole.lst
	$(PY) -m rlaccel dis $(OUT)/cartpole.rlb -o $(OUT)/cartpole.dis.s
	$(PY) -m rlaccel asm $(OUT)/cartpole.dis.s -o $(OUT)/cartpole.dis.rlb
	@$(PY) -c "import sys; from assembler.rlb import read; a, b = read('$(OUT)/cartpole.rlb'), read('$(OUT)/cartpole.dis.rlb'); same = (a.text, a.data, a.synapse, a.symbols) == (b.text, b.data, b.synapse, b.symbols); print('disassembly reassembles to identical sections and symbols:', same); sys.exit(0 if same else 1)"

test: venv
	$(PY) -m pytest

clean:
	rm -rf $(OUT) .pytest_cache
