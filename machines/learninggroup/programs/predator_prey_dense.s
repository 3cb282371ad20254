; LearningGroup (the paper): IC3Net trained on predator-prey without weight grouping (G = 1,
; the paper's dense baseline): every weight compressed into the cores once per iteration.
.arch   learninggroup
.default G, 1                       ; no grouping
.include "layout.inc"
.include "ic3net.inc"

.macro group_all
        cc.mark 1
        dense_compress
        wcomp.d W_HEAD, H, HEADS, 0
        wcomp.d W_HEAD, H, HEADS, 1
        cc.endmark 1
.endm

.macro update_groups                ; no grouping matrices
.endm

.include "loop.inc"
