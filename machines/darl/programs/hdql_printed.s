; HDC-based Q-learning on DARL in the printed form of the DARL paper (section 3.3-3.4):
; eq. 9-10's value (a cosine per chunk, the imaginary part subtracted: hreg.c, hreg.tc),
; q_true the marked entry of V_Q' of the same state (eq. 13: hsel.mask) and eq. 14's
; V_update = (q_true - q_pred) beta + r (hupd.p). One encoding per iteration: the next state
; s', which the host still sends, is not read. Host protocol, commands and marks: hdql.s.

.arch   darl
.include "layout.inc"

.macro regress_delayed              ; V2 = V_Q'(HV2) against the delayed model (eq. 10)
        hreg.tc src=HV2, syn=QD, dst=V2, n=NA, d=D
.endm

.macro update_value J               ; iteration J, s encoded in HV1: V_update into VU
        hreg.c  src=HV1, syn=Q, dst=V1, mask=SLOTS + J*SW + 2 + 2*NF, n=NA, d=D
        hreg.tc src=HV1, syn=QD, dst=V2, n=NA, d=D
        hsel.mask src=V1, dst=QP, mask=SLOTS + J*SW + 2 + 2*NF, n=NA
        hsel.mask src=V2, dst=QT, mask=SLOTS + J*SW + 2 + 2*NF, n=NA
        hupd.p  dst=VU, a=QP, b=QT, c=SLOTS + J*SW + 1 + 2*NF, k=BG
.endm

.include "loop.inc"
