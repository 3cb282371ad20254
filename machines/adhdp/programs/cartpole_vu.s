; Cart-pole, actor 4-6-1, critic 5-6-1, Fig. 7 (virtual update)
.arch   adhdp
.equ    NX, 4
.equ    NHA, 6
.equ    NHC, 6
.include "layout.inc"
.include "fig7.inc"
