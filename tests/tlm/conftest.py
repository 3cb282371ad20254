import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.tlm.platform import Platform


class ScriptedHost:
    """A host that answers every exchange with the same words and counts the calls."""

    def __init__(self, reply_words=None):
        self.reply = reply_words
        self.calls = []
        self.finished = False

    def exchange(self, out):
        self.calls.append(np.array(out))
        return np.array(self.reply)


@pytest.fixture
def machine():
    """Assemble a snippet for an architecture and build its Platform (not yet run)."""
    def build(body: str, arch: str = "adhdp-f64", host=None, **kw):
        a = assemble(f".arch {arch}\n" + body, "t.s")
        return Platform(load_arch(arch), a.binary, host or ScriptedHost(), **kw), a
    return build
