"""RTL of MADDPG's blocks (the MADDPG paper): the compute unit (:mod:`.cu`) and the ring node
(:mod:`.ring`). See docs/rtl.md."""
