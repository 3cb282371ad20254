"""RTL of MADDPG's blocks (seed 003): the compute unit (:mod:`.cu`) and the ring node
(:mod:`.ring`). See docs/rtl.md."""
