; Cart-pole, actor 4-10-1, critic 5-12-1, Fig. 2 (regular update)
.arch   adhdp
.equ    NX, 4
.equ    NHA, 10
.equ    NHC, 12
.include "layout.inc"
.include "fig2.inc"
