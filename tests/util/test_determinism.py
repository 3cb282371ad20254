"""A float32 run gives the same bits twice from its seed (FIXAR's float32 reference): two runs in fresh
processes, one started with two BLAS threads and the default kernel asked for, give the same
returns and weights once determinism.pin() has fixed the kernel and the threads; pin refuses
to act after numpy has loaded its BLAS."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rlaccel.util import determinism
from rlaccel.util.errors import RlaccelError

RUN = """
from rlaccel.util.determinism import pin
pin()
import hashlib, json
from rlaccel.machines.fixar.config import DdpgConfig
from rlaccel.machines.fixar.host import DdpgHost, train
from rlaccel.machines.fixar.reference import DdpgReference
cfg = DdpgConfig(env_id="HalfCheetah-v5", seed=3, steps=700, start_steps=300, eval_every=350,
                 eval_episodes=1, hidden=(64, 48), batch=32)
host = DdpgHost(cfg)
agent = DdpgReference(cfg, host.state_dim, host.action_dim)
out = train(agent, host)
print(json.dumps({"returns": out["learning"]["returns"],
                  "weights": hashlib.sha256(agent.actor.tobytes()
                                            + agent.critic.tobytes()).hexdigest()}))
"""


def _run(extra_env: dict) -> dict:
    env = {**os.environ, **extra_env}
    r = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_two_short_float32_runs_give_the_same_returns():
    a = _run({"OPENBLAS_NUM_THREADS": "1"})
    b = _run({"OPENBLAS_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "SkylakeX"})
    assert len(a["returns"]) == 2 and a["returns"][-1] != a["returns"][0]
    assert a == b


def test_the_cause_other_blas_kernels_give_other_bits():
    """Unpinned, the same seed on OpenBLAS's Sandybridge and Haswell kernels ends with other
    weights: the float32 sums' order is the kernel's."""
    unpinned = RUN.replace("pin()\n", "", 1)
    runs = []
    for kernel in ("Sandybridge", "Haswell"):   # both run on any AVX2 host
        env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "OPENBLAS_NUM_THREADS": "1"}
        r = subprocess.run([sys.executable, "-c", unpinned], env=env, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert runs[0]["weights"] != runs[1]["weights"]


def test_pin_sets_the_environment_and_refuses_after_numpy(monkeypatch):
    env = {"OPENBLAS_NUM_THREADS": "4"}
    assert determinism.pin(env) == determinism.PINNED and determinism.pinned(env)
    import numpy  # noqa: F401  (numpy has loaded its BLAS in this process)
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    with pytest.raises(RlaccelError, match="before importing numpy"):
        determinism.pin()


def test_pin_kernel_asks_for_haswell_unless_a_kernel_is_named():
    env: dict = {}
    assert determinism.pin_kernel(env) == determinism._avx2()
    assert env == ({"OPENBLAS_CORETYPE": "Haswell"} if determinism._avx2() else {})
    named = {"OPENBLAS_CORETYPE": "Sandybridge"}
    assert not determinism.pin_kernel(named) and named == {"OPENBLAS_CORETYPE": "Sandybridge"}


def test_importing_rlaccel_pins_the_kernel_before_numpy_loads():
    """On an AVX2 host the kernel is Haswell's; elsewhere it is left to OpenBLAS."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    r = subprocess.run([sys.executable, "-c", "import os, rlaccel, numpy; "
                        "print(os.environ.get('OPENBLAS_CORETYPE', '-'))"],
                       env=env, capture_output=True, text=True, timeout=120, check=True)
    assert r.stdout.split() == (["Haswell"] if determinism._avx2() else ["-"])


def test_one_thread_sets_every_blas_unless_a_count_is_named():
    env: dict = {}
    assert determinism.one_thread(env) and env == {v: "1" for v in determinism.THREADS}
    named = {"OMP_NUM_THREADS": "4"}
    assert not determinism.one_thread(named) and named == {"OMP_NUM_THREADS": "4"}


@pytest.mark.parametrize("given, expected", [(None, "1"), ("2", "2")])
def test_importing_rlaccel_gives_the_blas_one_thread_unless_told(given, expected):
    env = {k: v for k, v in os.environ.items() if k not in determinism.THREADS}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    r = subprocess.run([sys.executable, "-c", "import os, rlaccel, numpy; "
                        "print(os.environ['OPENBLAS_NUM_THREADS'])"],
                       env=env, capture_output=True, text=True, timeout=120, check=True)
    assert r.stdout.split() == [expected]
