"""The PCIe host link of the FIXAR platform: what a host <-> accelerator transfer costs.

Seed 002 (section III, Fig. 3): every time step the host sends the actor's current state and
a batch of ``B`` transitions, the accelerator trains and returns the action. Section VI-C,
Fig. 9: "the time spent on Xilinx run-time to import the input batch from the host CPU to
the FPGA increases marginally even though the batch size doubles up ... the initial overhead
of buffer allocation and PCIe communication in the run-time is quite large". So a transfer
costs a fixed per-call overhead (run-time: buffer allocation, synchronisation, kernel
launch) plus the DMA latency plus the bytes at the link's bandwidth::

    t = calls * (call_overhead_s + latency_s) + bytes / bandwidth

The seed gives no figure for any of the three. The link is PCIe Gen3 x16 through XDMA with a
512-bit data path (AMD UG1120, "DMA Configurations", for the U50): 15.75 GB/s raw; we take
12 GB/s effective and 1 us per DMA as assumptions. The per-call overhead is the only term
that matters at these sizes (a batch of 512 HalfCheetah transitions is 86 KB, 7 us at
12 GB/s); :func:`overhead_from_seed` derives it from the seed's own throughput figures, and
``machines/fixar/README.md`` states the assumptions that derivation rests on.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.util.errors import ArchError

__all__ = ["PcieLink", "step_bytes", "transfer_seconds", "step_transfer_seconds",
           "overhead_from_seed", "SEED_SYSTEM_IPS", "SEED_ACCELERATOR_IPS", "SEED_ENV_SECONDS"]

#: seed 002's figures the overhead is derived from (abstract, section VI-C)
SEED_SYSTEM_IPS = 25293.3
SEED_ACCELERATOR_IPS = 53826.8
SEED_ENV_SECONDS = 2e-3          # "the CPU time spent on running MuJoCo ... around 2 ms"


@dataclass(frozen=True)
class PcieLink:
    """Cost parameters of the host link."""

    call_overhead_s: float
    bandwidth: float = 12e9          # bytes/s, assumption (Gen3 x16 raw 15.75 GB/s)
    latency_s: float = 1e-6          # per DMA, assumption
    calls_per_step: int = 1          # run-time calls per time step (batch import)

    def __post_init__(self):
        if self.call_overhead_s < 0 or self.bandwidth <= 0 or self.latency_s < 0 \
                or self.calls_per_step < 0:
            raise ArchError(f"host link: {self} has a negative time, a non-positive bandwidth "
                            f"or a negative call count")


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


def overhead_from_seed(batch: int = 512, system_ips: float = SEED_SYSTEM_IPS,
                       accelerator_ips: float = SEED_ACCELERATOR_IPS,
                       env_seconds: float = SEED_ENV_SECONDS, calls: int = 1) -> float:
    """The per-call overhead that makes the seed's figures add up, assuming the system IPS
    was measured at ``batch`` and the three parts of a step (environment, run-time,
    accelerator) run one after the other (Fig. 9(a) stacks them)::

        batch / system_ips = env_seconds + calls * overhead + batch / accelerator_ips
    """
    rest = batch / system_ips - env_seconds - batch / accelerator_ips
    if rest <= 0:
        raise ArchError(f"the seed's figures leave no time for the host link at batch {batch} "
                        f"({rest * 1e3:.3f} ms): the system IPS cannot have been measured there")
    return rest / calls
