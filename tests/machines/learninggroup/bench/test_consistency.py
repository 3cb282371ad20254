"""machines/learninggroup/bench/consistency.py: the arithmetic on the paper's figures, and the
controller's counts on IC3Net's layers (dense rows of 512 weights fill the VPUs; four rows a
pass bound the 512-wide layer's speed-up at G = 16)."""

import pytest


def test_the_papers_numbers(consistency):
    a = consistency.paper_arithmetic()
    assert a["peak_gflops"] == pytest.approx(277.2)
    assert a["bound_512"] == pytest.approx(4 * 512 / 264)
    assert a["rows_per_cycle_for_inference"] == pytest.approx(12.52 * 264 / 512)
    assert a["util_g16_bound_512"] == pytest.approx(128 / 264)
    assert a["util_exact_512"][2] == pytest.approx(1024 / 1056)


def test_four_rows_a_pass_bound_the_lstm_layer(consistency):
    rows = consistency.summarise(consistency.network(2, 1, [4], groups=(1, 16)))
    r = rows[4][16]
    # dense passes of four 512-wide rows take 8 cycles, sparse ones at least 1
    assert 1 < r["lstm_ih_speedup"] <= 8
    assert r["lstm_ih_utilization"] <= 128 / 264 + 1e-9
    assert rows[4][1]["lstm_ih_speedup"] == 1
