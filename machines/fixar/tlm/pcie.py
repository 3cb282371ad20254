"""The PCIe host link of the FIXAR platform: what a host <-> accelerator transfer costs.

The FIXAR paper (section III, Fig. 3): every time step the host sends the actor's current state and
a batch of ``B`` transitions, the accelerator trains and returns the action. A transfer costs
a fixed per-call overhead of the run time (enqueueing the kernel with its buffers) plus the
DMA's latency plus the bytes at the link's bandwidth::

    t = calls * (call_overhead_s + latency_s) + bytes / bandwidth

:func:`cited_link` takes each term from a cited figure (the cost model's primitives,
``tlm/cost/primitives.toml``): Xilinx's 30-60 us per enqueued kernel command (UG1023; the
midpoint), about 5.4 us per small DMA on a U50 (an ``xbutil validate`` reading, XRT issue
6787) and PCIe Gen3 x16's 15.75 GB/s. The host's own time (the environment, the replay
sampling, the packing) is measured on this machine by the driver, never taken from the paper.

:func:`overhead_from_paper` is what the paper's throughput figures would imply for the per-call
overhead if the three parts of a step ran one after the other (8.73 ms at B = 512): it is
reported beside the model as the residual the model does not explain (Fig. 9's "initial
overhead of buffer allocation and PCIe communication in the run-time"), never used as a
default.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.util.errors import ArchError

__all__ = ["PcieLink", "cited_link", "step_bytes", "transfer_seconds", "step_transfer_seconds",
           "overhead_from_paper", "SEED_SYSTEM_IPS", "SEED_ACCELERATOR_IPS", "PAPER_ENV_SECONDS"]

#: the FIXAR paper's figures, for comparison (abstract, section VI-C)
SEED_SYSTEM_IPS = 25293.3
SEED_ACCELERATOR_IPS = 53826.8
PAPER_ENV_SECONDS = 2e-3          # "the CPU time spent on running MuJoCo ... around 2 ms"


@dataclass(frozen=True)
class PcieLink:
    """Cost parameters of the host link."""

    call_overhead_s: float
    bandwidth: float = 15.75e9       # bytes/s (PCIe Gen3 x16, cited_link's)
    latency_s: float = 5.4e-6        # per DMA (cited_link's)
    calls_per_step: int = 1          # run-time calls per time step (batch import)
    sources: tuple = ()

    def __post_init__(self):
        if self.call_overhead_s < 0 or self.bandwidth <= 0 or self.latency_s < 0 \
                or self.calls_per_step < 0:
            raise ArchError(f"host link: {self} has a negative time, a non-positive bandwidth "
                            f"or a negative call count")


def cited_link(call_overhead_s: float | None = None) -> PcieLink:
    """The link from the cost model's cited figures (module doc); ``call_overhead_s``
    replaces the run time's per-call overhead (a manifest's ``host.pcie_overhead_s``)."""
    from rlaccel.tlm.cost.primitives import table
    enq, dma, bus = (table("link.xrt_enqueue"), table("link.xdma_small_transfer"),
                     table("link.pcie_gen3x16"))
    oh = enq["overhead_s"] if call_overhead_s is None else call_overhead_s
    return PcieLink(call_overhead_s=oh, bandwidth=bus["raw_bytes_per_s"],
                    latency_s=dma["latency_s"],
                    sources=(enq["ref"] if call_overhead_s is None else "the manifest",
                             dma["ref"], bus["ref"]))


def step_bytes(state_dim: int, action_dim: int, batch: int, word_bytes: int = 4) -> tuple[int, int]:
    """``(to_device, to_host)`` bytes of one time step: the current state and ``batch``
    transitions ``(s, a, r, s', done)`` in, the action out, one word per number."""
    transition = 2 * state_dim + action_dim + 2
    return (state_dim + batch * transition) * word_bytes, action_dim * word_bytes


def transfer_seconds(nbytes: int, link: PcieLink, calls: int = 1) -> float:
    """Seconds to move ``nbytes`` in ``calls`` run-time calls."""
    return calls * (link.call_overhead_s + link.latency_s) + nbytes / link.bandwidth


def step_transfer_seconds(state_dim: int, action_dim: int, batch: int, link: PcieLink,
                          word_bytes: int = 4) -> float:
    """The host link's share of one time step (both directions; the run-time calls are
    ``link.calls_per_step``, the action's return DMA adds only its latency)."""
    down, up = step_bytes(state_dim, action_dim, batch, word_bytes)
    return (transfer_seconds(down, link, link.calls_per_step)
            + link.latency_s + up / link.bandwidth)


def overhead_from_paper(batch: int = 512, system_ips: float = SEED_SYSTEM_IPS,
                       accelerator_ips: float = SEED_ACCELERATOR_IPS,
                       env_seconds: float = PAPER_ENV_SECONDS, calls: int = 1) -> float:
    """The per-call overhead that makes the paper's figures add up, assuming the system IPS
    was measured at ``batch`` and the three parts of a step (environment, run-time,
    accelerator) run one after the other (Fig. 9(a) stacks them)::

        batch / system_ips = env_seconds + calls * overhead + batch / accelerator_ips
    """
    rest = batch / system_ips - env_seconds - batch / accelerator_ips
    if rest <= 0:
        raise ArchError(f"the paper's figures leave no time for the host link at batch {batch} "
                        f"({rest * 1e3:.3f} ms): the system IPS cannot have been measured there")
    return rest / calls
