; HDC-based Q-learning on DARL (seed 004, Fig. 2-7): one agent's kernel. With N agents every
; agent runs this program (sHDQL for one, dHDQL in bundled mode for N).
;
; Host protocol (programs/darl/host.py): the first exchange brings beta, gamma and the
; position matrix; then the host answers every exchange with one command:
;   F_ACT   -- an inference iteration (Fig. 2 b-e): encode the state, regress against Q',
;              select the greedy action, return it in OUT;
;   F_TRAIN -- a training batch of up to MAXB samples, one kernel iteration each: encode s and
;              s', regress s against Q (pending updates of the marked row land, eq. 17-18) and
;              s' against Q', q_pred and q_true, V_update (eq. 14), the update hypervectors
;              into the cache and the shard (eq. 15-16);
;   F_SYNC  -- the end of a training stage: the butterfly all-reduce of the shards (eq. 19-22,
;              every agent waits for the others), Q' += the average, Q <- Q';
;   none    -- halt.
; Marks: 1 an inference iteration, 2 a training iteration (Table 1's L), 3 a stage end.

.arch   darl
.include "layout.inc"

.macro sample J                     ; training iteration J of the batch
        cc.bz   SLOTS + J*SW, next                          ; VALID = 0: the batch is over
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

.text
        cc.host out=OUT, nout=1, inp=INIT, nin=NINIT        ; beta, gamma, P
        hld     src=PIN, syn=P, n=NF, d=D
next:   cc.host out=OUT, nout=1, inp=IN, nin=NIN            ; the next command
        cc.bnz  F_ACT, act
        cc.bnz  F_TRAIN, train
        cc.bnz  F_SYNC, sync
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
