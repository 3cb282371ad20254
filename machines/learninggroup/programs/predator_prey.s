; LearningGroup (the paper): IC3Net + FLGW trained on predator-prey, G groups (G >= 2).
; The encoder, the communication layer and both LSTM matrices are grouped; the heads stay
; dense. Per iteration (section III): weight grouping (max indexes, OSEL forward and
; transposed tuples, weight compression), B episodes of forward steps and BPTT with weight
; gradients accumulated, then the grouping update and RMSprop.
.arch   learninggroup
.include "layout.inc"
.include "ic3net.inc"

.macro group_all
        cc.mark 1                   ; ---- weight grouping ----
        group_layer W_ENC, IG_ENC, OG_ENC, SF_ENC, ST_ENC, NOBS, H
        group_layer W_COMM, IG_COMM, OG_COMM, SF_COMM, ST_COMM, H, H
        group_layer W_IH, IG_IH, OG_IH, SF_IH, ST_IH, H, 4*H
        group_layer W_HH, IG_HH, OG_HH, SF_HH, ST_HH, H, 4*H
        wcomp.d W_HEAD, H, HEADS, 0
        wcomp.d W_HEAD, H, HEADS, 1
        cc.endmark 1
.endm

.macro update_groups
        update_layer W_ENC, G_ENC, IG_ENC, OG_ENC, V_IG_ENC, V_OG_ENC, SF_ENC, NOBS, H
        update_layer W_COMM, G_COMM, IG_COMM, OG_COMM, V_IG_COMM, V_OG_COMM, SF_COMM, H, H
        update_layer W_IH, G_IH, IG_IH, OG_IH, V_IG_IH, V_OG_IH, SF_IH, H, 4*H
        update_layer W_HH, G_HH, IG_HH, OG_HH, V_IG_HH, V_OG_HH, SF_HH, H, 4*H
.endm

.include "loop.inc"
