#!/usr/bin/env bash
# Install the HDL tools the RTL tests need and build MyHDL's VPI module for Icarus Verilog.
#
#   rtl/tools/setup.sh [PYTHON]
#
# Idempotent: does nothing when iverilog, vvp, iverilog-vpi, verilator, yosys and a C/C++
# compiler are on PATH and .hdl/myhdl.vpi was built for the installed MyHDL version. The
# tools come from the distribution's packages (apt-get, as root or through sudo); the VPI
# module is compiled from the MyHDL source distribution of the installed version (its
# cosimulation/icarus directory).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${1:-$ROOT/.venv/bin/python}"
CACHE="$ROOT/.hdl"

missing=()
for tool in iverilog vvp iverilog-vpi verilator yosys gcc g++ make; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
    # gcc builds the VPI module (iverilog-vpi); g++ and make build Verilator's C++ models
    echo "rtl/tools/setup.sh: installing iverilog, verilator, yosys, g++, make (missing: ${missing[*]})"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "rtl/tools/setup.sh: need root (or sudo) to apt-get install iverilog verilator yosys" >&2
            exit 1; }
        SUDO="sudo"
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        iverilog verilator yosys g++ make >/dev/null
fi

version="$("$PY" -c 'import importlib.metadata as m; print(m.version("myhdl"))')"
if [ -f "$CACHE/myhdl.vpi" ] && [ "$(cat "$CACHE/myhdl.vpi.version" 2>/dev/null)" = "$version" ]; then
    exit 0
fi
echo "rtl/tools/setup.sh: building myhdl.vpi for MyHDL $version"
mkdir -p "$CACHE"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$PY" -m pip download --quiet --no-binary :all: --no-deps "myhdl==$version" -d "$work"
tar -xzf "$work"/myhdl-"$version".tar.gz -C "$work"
(cd "$work/myhdl-$version/cosimulation/icarus" && iverilog-vpi myhdl.c myhdl_table.c >/dev/null)
cp "$work/myhdl-$version/cosimulation/icarus/myhdl.vpi" "$CACHE/myhdl.vpi"
echo "$version" > "$CACHE/myhdl.vpi.version"
