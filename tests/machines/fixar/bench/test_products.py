"""machines/fixar/bench/products.py: the speed workload's product shapes counted from a run
(the step's ten large products among them), each timed through the simulator's exact kernel,
float64 and float32 BLAS; the JSON holds the rows and the per-step totals."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[4] / "machines" / "fixar" / "bench" / "products.py"


def _module():
    spec = importlib.util.spec_from_file_location("products_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_workloads_products_are_counted_and_timed(tmp_path):
    out = tmp_path / "p.json"
    _module().main(["--steps", "2", "--repeats", "1", "--json", str(out)])
    r = json.loads(out.read_text())
    assert r["training_steps"] == 2
    big = [s for s in r["shapes"] if 400 in s["a"] + s["b"] and 300 in s["a"] + s["b"]
           and 64 in s["a"]]
    assert sum(s["per_step"] for s in big) == 10       # the DDPG step's ten large products
    for s in r["shapes"]:
        assert s["kernel_ms"] > 0 and s["float64_ms"] > 0 and s["float32_ms"] > 0
    t = r["totals"]
    assert t["float64_over_float32"] == t["float64_ms_per_step"] / t["float32_ms_per_step"]
