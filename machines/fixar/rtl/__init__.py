"""RTL of FIXAR's blocks (the FIXAR paper): the configurable processing element (:mod:`.pe`) and
the Gaussian noise generator (:mod:`.prng`). See docs/rtl.md."""
