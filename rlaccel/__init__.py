"""rlaccel: assemble, simulate and verify reinforcement-learning accelerators.

The public facade; the layers live in the subpackages ``rlaccel.isa``, ``rlaccel.assembler``,
``rlaccel.tlm``, ``rlaccel.rtl``, ``rlaccel.programs``, ``rlaccel.sweep`` and ``rlaccel.util``,
the machines in ``rlaccel.machines``. Every name of ``__all__`` is imported on first use, so
importing a layer (or starting the command line) loads nothing it does not need.

Importing it pins OpenBLAS's kernel before numpy loads (:func:`rlaccel.util.determinism.pin_kernel`),
so a float32 run gives the same bits on every x86-64 host with AVX2, and gives the BLAS one
thread unless the environment names a count (:func:`rlaccel.util.determinism.one_thread`).
"""

from rlaccel.util.determinism import one_thread as _one_thread, pin_kernel as _pin_kernel

_pin_kernel()
_one_thread()

__all__ = [
    "__version__",
    "Arch", "Assembly", "Binary", "Instruction", "RlaccelError", "Symbol",
    "assemble", "assemble_file", "disassemble", "encoding_for", "get_dtype", "load_arch",
    "read_binary", "write_binary", "Platform", "run",
]

#: name -> (module, attribute) of the facade's names
_LAZY = {"__version__": ("rlaccel.util.version", "VERSION"),
         "Assembly": ("rlaccel.assembler.assemble", "Assembly"),
         "assemble": ("rlaccel.assembler.assemble", "assemble"),
         "assemble_file": ("rlaccel.assembler.assemble", "assemble_file"),
         "disassemble": ("rlaccel.assembler.disassemble", "disassemble"),
         "Binary": ("rlaccel.assembler.rlb", "Binary"),
         "Symbol": ("rlaccel.assembler.rlb", "Symbol"),
         "read_binary": ("rlaccel.assembler.rlb", "read"),
         "write_binary": ("rlaccel.assembler.rlb", "write"),
         "Arch": ("rlaccel.isa.arch", "Arch"),
         "load_arch": ("rlaccel.isa.arch", "load_arch"),
         "get_dtype": ("rlaccel.isa.dtypes", "get_dtype"),
         "Instruction": ("rlaccel.isa.encoding", "Instruction"),
         "encoding_for": ("rlaccel.isa.encoding", "encoding_for"),
         "RlaccelError": ("rlaccel.util.errors", "RlaccelError"),
         "Platform": ("rlaccel.tlm.platform", "Platform"),
         "run": ("rlaccel.programs.runner", "run")}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rlaccel' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
