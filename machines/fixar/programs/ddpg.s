; FIXAR (the FIXAR paper): one DDPG time step per host exchange (Fig. 3), every DNN operation on the
; accelerator. Host protocol (machines/fixar/driver.py): the first exchange brings the initial
; weights and constants; then each exchange sends the last action and brings a request:
; DONE (halt), EVAL (the deterministic action for ST: evaluation), or a training step (the
; batch, ST, Adam's constants; FREEZE at Algorithm 1's quantization delay).
;
; QAT slots (qid): actor layer inputs 1-3, critic layer inputs 4-6 (the target networks share
; their online network's). Training passes monitor (mon=1), evaluation does not.

.arch   fixar
.include "layout.inc"

; A batch through the actor at NET (layers L1, L2, pre-activation Z): the action written
; after the S state words of each IN row (CIN words apart), as the critic reads it.
.macro actor_ff IN, NET, L1, L2, Z
        bff     src=IN, sstride=CIN, syn=NET, dst=L1, dstride=H1, rows=H1, cols=S, batch=B, act=relu, qid=1, mon=1
        bff     src=L1, sstride=H1, syn=NET + NA1, dst=L2, dstride=H2, rows=H2, cols=H1, batch=B, act=relu, qid=2, mon=1
        bff     src=L2, sstride=H2, syn=NET + NA1 + NA2, dst=Z, dstride=A, rows=A, cols=H2, batch=B, qid=3, mon=1
        vact    dst=IN + S, dstride=CIN, src=Z, sstride=A, cols=A, batch=B, act=tanh
.endm

; A batch of IN rows (state and action, CIN words) through the critic at NET (layers L1,
; L2): Q into OUT.
.macro critic_ff IN, NET, L1, L2, OUT
        bff     src=IN, sstride=CIN, syn=NET, dst=L1, dstride=H1, rows=H1, cols=CIN, batch=B, act=relu, qid=4, mon=1
        bff     src=L1, sstride=H1, syn=NET + NC1, dst=L2, dstride=H2, rows=H2, cols=H1, batch=B, act=relu, qid=5, mon=1
        bff     src=L2, sstride=H2, syn=NET + NC1 + NC2, dst=OUT, dstride=1, rows=1, cols=H2, batch=B, qid=6, mon=1
.endm

.text
        cc.host out=ACK, nout=1, inp=INIT, nin=NINIT
        ldw     dst=ACTOR, ld=WINIT, n=NACT
        ldw     dst=CRITIC, ld=WINIT + NACT, n=NCRI
        ldw     dst=TACTOR, ld=WINIT, n=NACT
        ldw     dst=TCRITIC, ld=WINIT + NACT, n=NCRI
        rng.seed src=SEEDW, stream=1
        vfill   dst=ONES, cols=B, value=1.0
step:   cc.host out=OUTA, nout=A, inp=IN, nin=NIN
        cc.bnz  DONE, finish
        cc.bnz  EVAL, evaluate
        cc.bz   FREEZE, train
        qat.freeze bits=QBITS
train:  cc.mark 1
; ---- 1. critic: y = r + gamma (1 - done) Q'(s', mu'(s')), back-propagate q - y ----
        actor_ff NXT, TACTOR, TA1, TA2, TZ
        critic_ff NXT, TCRITIC, TC1, TC2, Q2
        critic_ff BAT, CRITIC, C1, C2, Q
        td      dst=E, src=Q, z=Q2, batch=B, value=GAMMA
        bbp     err=E, estride=1, syn=CRITIC + NC1 + NC2, dst=E2, dstride=H2, rows=1, cols=H2, batch=B, act=relu, mask=C2, mstride=H2, qid=6
        bbp     err=E2, estride=H2, syn=CRITIC + NC1, dst=E1, dstride=H1, rows=H2, cols=H1, batch=B, act=relu, mask=C1, mstride=H1, qid=5
        bwg     err=E, estride=1, x=C2, xstride=H2, grad=GCRITIC + NC1 + NC2, rows=1, cols=H2, batch=B, qid=6
        bwg     err=E2, estride=H2, x=C1, xstride=H1, grad=GCRITIC + NC1, rows=H2, cols=H1, batch=B, qid=5
        bwg     err=E1, estride=H1, x=BAT, xstride=CIN, grad=GCRITIC, rows=H1, cols=CIN, batch=B, qid=4
        adam    w=CRITIC, g=GCRITIC, m=MCRITIC, n=NCRI, hp=HPC
; ---- 2. actor, through the updated critic: back-propagate -dQ/da ----
        actor_ff BAT, ACTOR, A1, A2, AZ
        critic_ff BAT, CRITIC, P1, P2, PQ
        bbp     err=ONES, estride=1, syn=CRITIC + NC1 + NC2, dst=F2, dstride=H2, rows=1, cols=H2, batch=B, act=relu, mask=P2, mstride=H2, qid=6
        bbp     err=F2, estride=H2, syn=CRITIC + NC1, dst=F1, dstride=H1, rows=H2, cols=H1, batch=B, act=relu, mask=P1, mstride=H1, qid=5
        bbp     err=F1, estride=H1, syn=CRITIC, dst=DA, dstride=A, rows=H1, cols=A, off=S, batch=B
        vdact   dst=DZ, dstride=A, src=DA, sstride=A, z=AZ, cols=A, batch=B, act=tanh, neg=1
        bbp     err=DZ, estride=A, syn=ACTOR + NA1 + NA2, dst=G2, dstride=H2, rows=A, cols=H2, batch=B, act=relu, mask=A2, mstride=H2, qid=3
        bbp     err=G2, estride=H2, syn=ACTOR + NA1, dst=G1, dstride=H1, rows=H2, cols=H1, batch=B, act=relu, mask=A1, mstride=H1, qid=2
        bwg     err=DZ, estride=A, x=A2, xstride=H2, grad=GACTOR + NA1 + NA2, rows=A, cols=H2, batch=B, qid=3
        bwg     err=G2, estride=H2, x=A1, xstride=H1, grad=GACTOR + NA1, rows=H2, cols=H1, batch=B, qid=2
        bwg     err=G1, estride=H1, x=BAT, xstride=CIN, grad=GACTOR, rows=H1, cols=S, batch=B, qid=1
        adam    w=ACTOR, g=GACTOR, m=MACTOR, n=NACT, hp=HPA
; ---- 3. targets: soft updates on the Adam unit, beside the action and the host ----
        soft    dst=TACTOR, src=ACTOR, n=NACT + NCRI, tau=TAUW   ; both (TACTOR, TCRITIC follow)
; ---- 4. the action for the current state, with the PRNG's noise ----
        bff     src=ST, sstride=S, syn=ACTOR, dst=X1, dstride=H1, rows=H1, cols=S, batch=1, act=relu, qid=1, mon=1
        bff     src=X1, sstride=H1, syn=ACTOR + NA1, dst=X2, dstride=H2, rows=H2, cols=H1, batch=1, act=relu, qid=2, mon=1
        bff     src=X2, sstride=H2, syn=ACTOR + NA1 + NA2, dst=XZ, dstride=A, rows=A, cols=H2, batch=1, qid=3, mon=1
        vact    dst=XA, dstride=A, src=XZ, sstride=A, cols=A, batch=1, act=tanh
        noise   dst=OUTA, src=XA, n=A, sigma=SIGW, stream=1
tend:   cc.endmark 1
        cc.jmp  step
; ---- evaluation: the deterministic action, no monitoring, no noise ----
evaluate:
        bff     src=ST, sstride=S, syn=ACTOR, dst=X1, dstride=H1, rows=H1, cols=S, batch=1, act=relu, qid=1
        bff     src=X1, sstride=H1, syn=ACTOR + NA1, dst=X2, dstride=H2, rows=H2, cols=H1, batch=1, act=relu, qid=2
        bff     src=X2, sstride=H2, syn=ACTOR + NA1 + NA2, dst=XZ, dstride=A, rows=A, cols=H2, batch=1, qid=3
        vact    dst=OUTA, dstride=A, src=XZ, sstride=A, cols=A, batch=1, act=tanh
        cc.jmp  step
finish: cc.halt
