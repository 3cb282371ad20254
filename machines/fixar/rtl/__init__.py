"""RTL of FIXAR's blocks (seed 002): the configurable processing element (:mod:`.pe`) and
the Gaussian noise generator (:mod:`.prng`). See docs/rtl.md."""
