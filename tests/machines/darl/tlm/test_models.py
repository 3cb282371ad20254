"""The hdc family's instruction models on the platform: the butterfly all-reduce across
agents (eq. 19-22) against the unit model and the interconnect's formula, the costs against
timing.instruction_cycles, and the errors for a network or a hypervector that does not fit."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import butterfly_allreduce, iteration_cycles
from rlaccel.machines.darl.tlm.timing import Optimisations, Workload, instruction_cycles
from rlaccel.tlm.platform import Platform

NA, D = 2, 64


def _arch(tmp_path, agents, extra=""):
    p = tmp_path / f"darl{agents}.toml"
    p.write_text(f'inherit = "darl"\nname = "t{agents}"\n[machine]\nagents = {agents}\n{extra}')
    return load_arch(str(p))


def _program(arch, seed, avg=1):
    src = (f".arch darl\n.synapse\nSH: .rand {2 * NA * D}, -4.0, 4.0, {seed}\n.text\n"
           f"hallreduce src=SH, n={NA}, d={D}, avg={avg}\ncc.halt\n")
    return assemble(src, f"agent{seed}.s", arch=arch).binary


@pytest.mark.parametrize("agents", [1, 2, 4, 8])
def test_every_agent_ends_with_the_same_average_and_the_formula_cycles(tmp_path, agents):
    arch = _arch(tmp_path, agents)
    bins = [_program(arch, 10 + i) for i in range(agents)]
    p = Platform(arch, bins)
    shards = [p.symbol_view("SH", i).copy() for i in range(agents)]
    p.run()
    want = butterfly_allreduce(shards, get_dtype("fixed32"))
    for i in range(agents):
        assert np.array_equal(p.symbol_view("SH", i), want[i])
        assert np.array_equal(want[i], want[0])
    assert not np.array_equal(want[0], shards[0]) or agents == 1
    # every agent starts together: log2 N stages of (hop + ceil(words / width)) cycles
    words = 2 * NA * D
    formula = (agents.bit_length() - 1) * (5 + -(-words // 256))        # darl.toml's link
    assert p.interconnect.allreduce_cycles(words) == formula
    for a in p.agents:
        assert a.controller.sync_cycles == formula


def test_the_sum_leaves_out_the_division(tmp_path):
    arch = _arch(tmp_path, 4)
    p = Platform(arch, [_program(arch, 10 + i, avg=0) for i in range(4)])
    shards = [p.symbol_view("SH", i).copy() for i in range(4)]
    p.run()
    want = butterfly_allreduce(shards, get_dtype("fixed32"), average=False)
    for i in range(4):
        assert np.array_equal(p.symbol_view("SH", i), want[0])


def test_a_network_the_butterfly_cannot_take_is_an_error(tmp_path):
    arch = _arch(tmp_path, 3)
    with pytest.raises(ArchError, match=r"butterfly all-reduce needs a power-of-two number of "
                                        r"nodes \(1, 2, 4, 8, \.\.\.\), not 3"):
        Platform(arch, [_program(arch, 1)] * 3)


def test_the_all_reduce_needs_the_butterfly(tmp_path):
    arch = _arch(tmp_path, 2, '[interconnect]\nkind = "ring"\n')
    with pytest.raises(ArchError, match=r"'hallreduce' needs a butterfly interconnect"):
        Platform(arch, [_program(arch, 1)] * 2).run()


def test_a_hypervector_that_is_not_whole_chunks_is_an_error(tmp_path):
    arch = _arch(tmp_path, 1)
    src = (".arch darl\n.data\nS: .zero 4\n.synapse\nP: .zero 4*40\nH: .zero 80\n.text\n"
           "henc src=S, syn=P, dst=H, n=4, d=40\ncc.halt\n")
    with pytest.raises(ArchError, match=r"'henc' at PC 0: .*dimension 40 does not split into "
                                        r"chunks of 16 .*the chunk is the architecture's "
                                        r"lanes"):
        Platform(arch, assemble(src, "h.s", arch=arch).binary)


@pytest.mark.parametrize("n,a", [(4, 2), (8, 4)])
@pytest.mark.parametrize("opt", [Optimisations(), Optimisations(codebook=False),
                                 Optimisations(chunking=False),
                                 Optimisations(delayed_update=False)])
def test_instruction_parts_add_up_to_the_iteration(n, a, opt):
    """A training iteration's critical path (docs: henc || henc, hreg || hreg.t a cycle
    later, hsel.mask then hsel.max, hupd, hpush) is the iteration formula."""
    parts = iteration_cycles(Workload(n=n, a=a), opt=opt)
    cyc = {m: instruction_cycles(m, n=(n if m == "henc" else a), d=2048, chunk=16, opt=opt)
           for m in ("henc", "hreg", "hreg.t", "hsel.mask", "hsel.max", "hupd", "hpush",
                     "hsel.argmax")}
    enc = cyc["henc"]
    v = enc + cyc["hreg"]                         # V_Q(s): hreg starts when Re, Im of s are
    vt = enc + 1 + cyc["hreg.t"]                  # V_Q'(s'): a cycle later
    q_pred = v + cyc["hsel.mask"]
    q_true = max(v + 1, vt) + cyc["hsel.max"]     # issued after hsel.mask
    q_ready = max(q_pred, q_true)
    assert q_ready + cyc["hupd"] + cyc["hpush"] == sum(parts.values())
    assert enc + cyc["hreg.t"] + cyc["hsel.argmax"] == sum(
        iteration_cycles(Workload(n=n, a=a), opt=opt, train=False).values())
