"""What the ``rlaccel run --rtl`` transactors share: a transactor puts one RTL block under a
machine's TLM (``Platform`` calls its ``attach`` with an agent; ``MACHINE.rtl_run`` names it)
and runs the block in a job simulation (:func:`rtl.jobs.job_sim`: MyHDL's, or the block
compiled by Verilator, ``backend``).

:class:`JobTransactor` is the simulation's life (started in ``attach``, a job run on it,
closed) and its wall-clock time; :class:`SharedTransactor` adds what a block every agent
shares (an interconnect) needs: taking over every agent's instructions of one mnemonic and
keeping each collective call until every agent has left it; :func:`require_family` refuses
another machine's architecture.
"""

from __future__ import annotations

from typing import Callable, Generator

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.jobs import JobSim, job_sim

__all__ = ["JobTransactor", "SharedTransactor", "require_family"]


def require_family(agent, family: str, block: str, machine: str) -> None:
    """A transactor's block belongs to one machine: refuse another's architecture."""
    fams = agent.arch.knobs.families
    if family not in fams:
        raise RtlError(f"--rtl {block} runs on a {machine} machine (ISA family '{family}'); "
                       f"{agent.arch.path or agent.arch.name} has families "
                       f"{', '.join(fams)}")


class JobTransactor:
    """A transactor on a :class:`JobSim`: the simulation (made by :meth:`_start` in
    ``attach``), a job run on it (:meth:`_run`), ``close`` (MyHDL runs one simulation per
    process) and the seconds spent in the RTL."""

    #: the block in errors ("butterfly network")
    what = "block"
    #: the back end the block runs on (:data:`rtl.jobs.JOB_BACKENDS`), set before ``attach``
    backend = "myhdl"
    #: hears of a first Verilator compilation (the command line prints it on stderr)
    announce: Callable[[str], None] | None = None
    #: tests only: a function every job's result passes through before it is checked (an
    #: injected difference, to show that the checks catch it)
    fault: Callable | None = None
    #: jobs whose cycles differ from the TLM's timing (for a transactor that counts them
    #: rather than stopping the run), and what the first one was
    cycle_mismatches = 0
    first_mismatch = ""
    _sim: "JobSim | None" = None
    _wall = 0.0

    def _start(self, block_fn: Callable, ports: dict, prm, beside=()) -> JobSim:
        self._sim = job_sim(self.backend, block_fn, ports, prm, self.what, beside,
                            announce=self.announce)
        return self._sim

    @property
    def backend_name(self) -> str:
        """The back end as the summaries name it."""
        return {"myhdl": "MyHDL", "verilator": "Verilator"}.get(self.backend, self.backend)

    def _run(self, job: Callable[[JobSim], Generator], budget: int, task: str = "a job"):
        """:meth:`JobSim.run` on the attached block (its result through :attr:`fault`)."""
        if self._sim is None:
            raise RtlError(f"the RTL {self.what} is not attached to a platform (or was "
                           f"closed)")
        result = self._sim.run(job, budget, task)
        return result if self.fault is None else self.fault(result)

    def _cycles_differ(self, what: str) -> None:
        """A job took other cycles than the TLM's timing says (``what`` tells)."""
        self.cycle_mismatches += 1
        self.first_mismatch = self.first_mismatch or what

    def _differences(self) -> str:
        """The summary's words on the cycle differences: how many, and the first."""
        text = f"{self.cycle_mismatches} other differences"
        return text + (f"\n    first: {self.first_mismatch}" if self.first_mismatch else "")

    def close(self) -> None:
        """End the simulation (MyHDL runs one per process)."""
        if self._sim is not None:
            self._wall = self._sim.wall_s
            self._sim.close()
            self._sim = None

    @property
    def wall_s(self) -> float:
        """Seconds spent in the RTL simulation."""
        return self._sim.wall_s if self._sim is not None else self._wall


class SharedTransactor(JobTransactor):
    """A block the agents of a platform share: it attaches to a machine of several agents,
    takes over the ``run`` of every agent's instructions of one mnemonic
    (:meth:`_take_over`, with the subclass's ``_runner(agent, op, tlm_run)``), and keeps
    each collective call -- the agents' k-th such instruction, which every agent enters --
    until the last agent has left it (:meth:`_call`, :meth:`_leave`)."""

    #: attach to a machine of several agents (``Platform`` asks)
    all_agents = True
    #: the agents sharing the block
    n = 0

    def _take_over(self, platform, mnemonic: str) -> None:
        self.n = platform.n_agents
        self._calls: dict[int, dict] = {}
        for a in platform.agents:
            for op in a.ops:
                if op.mnemonic == mnemonic:
                    op.run = self._runner(a, op, op.run)

    def _call(self, c: int, **state) -> dict:
        """The agents' ``c``-th call: ``out``, the RTL's result once one agent has run it,
        ``left``, the agents still in it, and ``state`` as the first to enter gives it."""
        return self._calls.setdefault(c, {"out": None, "left": self.n, **state})

    def _leave(self, c: int) -> bool:
        """An agent is done with the ``c``-th call; True for the last one."""
        call = self._calls[c]
        call["left"] -= 1
        if call["left"]:
            return False
        del self._calls[c]
        return True
