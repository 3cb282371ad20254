"""rlaccel: assemble, simulate and verify reinforcement-learning accelerators.

The public facade; the layers live in the subpackages ``rlaccel.isa``, ``rlaccel.assembler``,
``rlaccel.tlm``, ``rlaccel.rtl``, ``rlaccel.programs``, ``rlaccel.sweep`` and ``rlaccel.util``,
the machines in ``rlaccel.machines``. ``Platform`` (the
simulator) and ``run`` (run a manifest) are imported on first use, so importing a layer stays
light.
"""

from rlaccel.assembler.assemble import Assembly, assemble, assemble_file
from rlaccel.assembler.disassemble import disassemble
from rlaccel.assembler.rlb import Binary, Symbol, read as read_binary, write as write_binary
from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Instruction, encoding_for
from rlaccel.util.errors import RlaccelError
from rlaccel.util.version import VERSION as __version__

__all__ = [
    "__version__",
    "Arch", "Assembly", "Binary", "Instruction", "RlaccelError", "Symbol",
    "assemble", "assemble_file", "disassemble", "encoding_for", "get_dtype", "load_arch",
    "read_binary", "write_binary", "Platform", "run",
]

_LAZY = {"Platform": ("rlaccel.tlm.platform", "Platform"),
         "run": ("rlaccel.programs.runner", "run")}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'rlaccel' has no attribute {name!r}")
