; Cart-pole, actor 4-10-1, critic 5-12-1, Fig. 7 (virtual update)
.arch   adhdp
.equ    NX, 4
.equ    NHA, 10
.equ    NHC, 12
.include "layout.inc"
.include "fig7.inc"
