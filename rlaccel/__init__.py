"""rlaccel: assemble, simulate and verify reinforcement-learning accelerators.

The public facade; the layers live in the top-level packages ``isa``, ``assembler``, ``tlm``,
``rtl`` and ``programs``.
"""

from assembler import __version__
from assembler.assemble import Assembly, assemble, assemble_file
from assembler.disassemble import disassemble
from assembler.rlb import Binary, Symbol, read as read_binary, write as write_binary
from isa.arch import Arch, load_arch
from isa.dtypes import get_dtype
from isa.encoding import Instruction, encoding_for
from isa.errors import RlaccelError

__all__ = [
    "__version__",
    "Arch", "Assembly", "Binary", "Instruction", "RlaccelError", "Symbol",
    "assemble", "assemble_file", "disassemble", "encoding_for", "get_dtype", "load_arch",
    "read_binary", "write_binary",
]
