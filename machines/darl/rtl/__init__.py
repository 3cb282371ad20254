"""RTL of DARL's blocks (seed 004): the butterfly all-reduce network (:mod:`.butterfly`) and
the codebook encoder (:mod:`.encoder`). See docs/rtl.md."""
