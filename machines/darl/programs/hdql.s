; HDC-based Q-learning on DARL (seed 004, Fig. 2-7): one agent's kernel. With N agents every
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

.macro iteration J                  ; training iteration J of the batch (Table 1's L)
        cc.mark 2
        henc    src=SLOTS + J*SW + 1, syn=P, dst=HV1, n=NF, d=D
        henc    src=SLOTS + J*SW + 1 + NF, syn=P, dst=HV2, n=NF, d=D
        hreg    src=HV1, syn=Q, dst=V1, mask=SLOTS + J*SW + 2 + 2*NF, n=NA, d=D
        hreg.t  src=HV2, syn=QD, dst=V2, n=NA, d=D
        hsel.mask src=V1, dst=QP, mask=SLOTS + J*SW + 2 + 2*NF, n=NA
        hsel.max src=V2, dst=QT, n=NA
        hupd    dst=VU, a=QP, b=QT, c=SLOTS + J*SW + 1 + 2*NF, k=BG
        hpush   src=HV1, v=VU, mask=SLOTS + J*SW + 2 + 2*NF, syn=SHARD, aux=Q, n=NA, d=D
        cc.endmark 2
.endm

.macro sample J                     ; training iteration J of the batch
        cc.bz   SLOTS + J*SW, next                          ; VALID = 0: the batch is over
        iteration J
.endm

.macro sample_ar J                  ; iteration J, then the shards' average (eq. 19-22)
        cc.bz   SLOTS + J*SW, next
        iteration J
        cc.mark 4 + (J + MAXB - 1) / MAXB                   ; 4 for J = 0, else 5
        hallreduce src=SHARD, n=NA, d=D, avg=1
        cc.endmark 4 + (J + MAXB - 1) / MAXB
.endm

.macro null J                       ; a share of iteration J's all-reduce, no update
        cc.bz   SLOTS + J*SW, next
        hallreduce src=SHARD, n=NA, d=D, avg=1
.endm

.text
        cc.host out=OUT, nout=1, inp=INIT, nin=NINIT        ; beta, gamma, P
        hld     src=PIN, syn=P, n=NF, d=D
next:   cc.host out=OUT, nout=1, inp=IN, nin=NIN            ; the next command
        cc.bnz  F_ACT, act
        cc.bnz  F_TRAIN, train
        cc.bnz  F_SYNC, sync
        cc.bnz  F_TRAINAR, trainar
        cc.bnz  F_NULL, null
        cc.halt
act:    cc.mark 1
        henc    src=STATE, syn=P, dst=HV2, n=NF, d=D
        hreg.t  src=HV2, syn=QD, dst=V2, n=NA, d=D
        hsel.argmax src=V2, dst=OUT, n=NA
        cc.endmark 1
        cc.jmp  next
sync:   cc.mark 3
        hallreduce src=SHARD, n=NA, d=D, avg=AVG
        hsync   src=SHARD, syn=Q, aux=QD, n=NA, d=D
        cc.endmark 3
        cc.jmp  next
train:  sample  0
        sample  1
        sample  2
        sample  3
        sample  4
        sample  5
        sample  6
        sample  7
        sample  8
        sample  9
        sample  10
        sample  11
        sample  12
        sample  13
        sample  14
        sample  15
        cc.jmp  next
trainar: sample_ar 0
        sample_ar 1
        sample_ar 2
        sample_ar 3
        sample_ar 4
        sample_ar 5
        sample_ar 6
        sample_ar 7
        sample_ar 8
        sample_ar 9
        sample_ar 10
        sample_ar 11
        sample_ar 12
        sample_ar 13
        sample_ar 14
        sample_ar 15
        cc.jmp  next
null:   null    0
        null    1
        null    2
        null    3
        null    4
        null    5
        null    6
        null    7
        null    8
        null    9
        null    10
        null    11
        null    12
        null    13
        null    14
        null    15
        cc.jmp  next
