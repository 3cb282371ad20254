; HDC-based Q-learning on DARL (the DARL paper, Fig. 2-7): one agent's kernel. With N agents every
; agent runs this program (sHDQL for one, dHDQL in bundled mode for N).
;
; Host protocol (machines/darl/host.py): the first exchange brings beta, gamma and the
; position matrix; then the host answers every exchange with one command:
;   F_ACT   -- an inference iteration (Fig. 2 b-e): encode the state, regress against Q',
;              select the greedy action, return it in OUT;
;   F_TRAIN -- a training batch of up to MAXB samples, one kernel iteration each: encode s and
;              s', regress s against Q (pending updates of the marked row land, eq. 17-18) and
;              s' against Q', q_pred and q_true, V_update (eq. 14), the update hypervectors
;              into the cache and the shard (eq. 15-16);
;   F_SYNC  -- the end of a training stage (or round): the butterfly all-reduce of the shards
;              (eq. 19-22, every agent waits for the others), Q' += the average, Q <- Q';
;   F_TRAINAR -- several agents synchronising every round: a training batch whose every
;              iteration ends with the all-reduce of the shard (Table 1's DARL8 L), the
;              shards then hold the agents' average so far;
;   F_NULL  -- up to MAXB all-reduces alone: an agent with no (or a shorter) batch in the round
;              joins the others' iterations (its shard is their average already: no change);
;   none    -- halt.
; Marks: 1 an inference iteration, 2 a training iteration (Table 1's L without the all-reduce),
; 3 a stage end, 4 and 5 the all-reduce of a batch's first and later iterations (the first
; one also waits for the agents that are not yet there).

.arch   darl
.include "layout.inc"

.macro regress_delayed              ; V2 = V_Q'(HV2) against the delayed model (eq. 7-10)
        hreg.t  src=HV2, syn=QD, dst=V2, n=NA, d=D
.endm

.macro update_value J               ; iteration J, s encoded in HV1: V_update into VU
        henc    src=SLOTS + J*SW + 1 + NF, syn=P, dst=HV2, n=NF, d=D
        hreg    src=HV1, syn=Q, dst=V1, mask=SLOTS + J*SW + 2 + 2*NF, n=NA, d=D
        regress_delayed
        hsel.mask src=V1, dst=QP, mask=SLOTS + J*SW + 2 + 2*NF, n=NA
        hsel.max src=V2, dst=QT, n=NA
        hupd    dst=VU, a=QP, b=QT, c=SLOTS + J*SW + 1 + 2*NF, k=BG
.endm

.include "loop.inc"
