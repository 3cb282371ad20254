; Triple-link inverted pendulum, actor 8-20-1, critic 9-20-1, Fig. 2 (regular update)
.arch   adhdp
.equ    NX, 8
.equ    NHA, 20
.equ    NHC, 20
.include "layout.inc"
.include "fig2.inc"
