"""The hazard rule's word-by-word loops (``earliest``, ``last_time``) step their schedules
without dividing; they must give what ``word_time`` gives word by word."""

import numpy as np

from rlaccel.tlm.fast.hazards import WHOLE, earliest, last_time, word_time


def _schedule(rng):
    return (int(rng.integers(-20, 200)), int(rng.choice([WHOLE, 1, 2, 3, 5, 8])),
            int(rng.integers(-3, 9)), int(rng.integers(-2, 5)),
            int(rng.choice([WHOLE, 1, 2, 3, 4])), int(rng.integers(-2, 7)))


def test_earliest_is_the_largest_ready_minus_use_over_the_shared_words():
    rng = np.random.default_rng(12)
    nonuniform = 0
    for _ in range(3000):
        plo, clo = int(rng.integers(0, 40)), int(rng.integers(0, 40))
        phi, chi = plo + int(rng.integers(1, 40)), clo + int(rng.integers(1, 40))
        p, c = _schedule(rng), _schedule(rng)
        lo, hi = max(plo, clo), min(phi, chi)
        words = [word_time(a - plo, *p) - word_time(a - clo, *c) for a in range(lo, hi)]
        got = earliest(plo, phi, *p, clo, chi, *c)
        if words and len(set(words)) > 1:
            nonuniform += 1
            assert got == max(words), (plo, phi, p, clo, chi, c)
        elif words and got != p[0] - c[0]:          # a uniform pair: t0 - t0, else the max
            assert got == max(words)
    assert nonuniform > 1000


def test_last_time_is_the_latest_word():
    rng = np.random.default_rng(3)
    for _ in range(3000):
        n = int(rng.integers(1, 60))
        s = _schedule(rng)
        assert last_time(n, *s) == max(s[0], *(word_time(e, *s) for e in range(n))), (n, s)
