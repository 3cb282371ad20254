"""RTL of DARL's blocks (the DARL paper): the butterfly all-reduce network (:mod:`.butterfly`) and
the codebook encoder (:mod:`.encoder`). See docs/rtl.md."""
