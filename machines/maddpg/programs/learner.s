; One MADDPG learner (the MADDPG paper, Fig. 4) with two hidden layers: the value pipeline (5L = 15
; compute units) and the policy pipeline (5L - 1 = 14) streaming every batch concurrently,
; the ring sharing the target actions sample by sample, then the batch's gradients applied
; (Adam, clipped per tensor) and the targets moved (Algorithm 1, lines 9-14).
;
; Compute units (u): value 0-14 and policy 15-28 in the order of
; machines/maddpg/tlm/pipeline.py (their unroll factors F0..F28 from the design-space
; exploration), and three Gumbel-softmax heads (29: pi' on o', 30: pi on o, 31: pi's
; backward pass), one element each.
;
; Host protocol (machines/maddpg/host.py): one exchange brings the initial weights; then per
; round the learner asks for a batch (DONE = 1: halt), trains on it, sends its policy back and
; meets the other learners at a barrier (so every policy is back before sample generation).

.arch   maddpg                      ; the runner passes the manifest's (maddpg-pp, ...)
.include "layout.inc"

.text
        cucfg   u=0, f=F0                   ; the units' unroll factors (defines F0 .. F28)
        cucfg   u=1, f=F1
        cucfg   u=2, f=F2
        cucfg   u=3, f=F3
        cucfg   u=4, f=F4
        cucfg   u=5, f=F5
        cucfg   u=6, f=F6
        cucfg   u=7, f=F7
        cucfg   u=8, f=F8
        cucfg   u=9, f=F9
        cucfg   u=10, f=F10
        cucfg   u=11, f=F11
        cucfg   u=12, f=F12
        cucfg   u=13, f=F13
        cucfg   u=14, f=F14
        cucfg   u=15, f=F15
        cucfg   u=16, f=F16
        cucfg   u=17, f=F17
        cucfg   u=18, f=F18
        cucfg   u=19, f=F19
        cucfg   u=20, f=F20
        cucfg   u=21, f=F21
        cucfg   u=22, f=F22
        cucfg   u=23, f=F23
        cucfg   u=24, f=F24
        cucfg   u=25, f=F25
        cucfg   u=26, f=F26
        cucfg   u=27, f=F27
        cucfg   u=28, f=F28
        cucfg   u=29, f=1                   ; the heads
        cucfg   u=30, f=1
        cucfg   u=31, f=1
        cc.host out=ACK, nout=1, inp=INIT, nin=NNETS      ; the four networks' initial weights
        wld     u=15, dst=PI1, n=NPI1, k=INIT
        wld     u=16, dst=PI2, n=NPI2, k=INIT + NPI1
        wld     u=17, dst=PI3, n=NPI3, k=INIT + NPI1 + NPI2
        wld     u=6, dst=Q1, n=NQ1, k=INIT + NPOL
        wld     u=7, dst=Q2, n=NQ2, k=INIT + NPOL + NQ1
        wld     u=8, dst=Q3, n=NQ3, k=INIT + NPOL + NQ1 + NQ2
        wld     u=0, dst=PIT1, n=NPI1, k=INIT + NNETS / 2
        wld     u=1, dst=PIT2, n=NPI2, k=INIT + NNETS / 2 + NPI1
        wld     u=2, dst=PIT3, n=NPI3, k=INIT + NNETS / 2 + NPI1 + NPI2
        wld     u=3, dst=QT1, n=NQ1, k=INIT + NNETS / 2 + NPOL
        wld     u=4, dst=QT2, n=NQ2, k=INIT + NNETS / 2 + NPOL + NQ1
        wld     u=5, dst=QT3, n=NQ3, k=INIT + NNETS / 2 + NPOL + NQ1 + NQ2
round:  cc.mark 1                                          ; a round: the learner's T_MU
        cc.host out=ACK, nout=1, inp=IN, nin=NIN          ; the next batch
        cc.bnz  DONE, finish
body:   cc.mark 2                                          ; the training itself
; ---- value pipeline, what needs no other learner: the target action a' = pi'(o') + head,
;      Q(o, a) ----
        pfp     u=0, a=XN + OOFF, sa=NOBS, syn=PIT1, dst=TH1, sd=H1, rows=H1, cols=OBS, act=relu, batch=B
        pfp     u=1, a=TH1, sa=H1, syn=PIT2, dst=TH2, sd=H2, rows=H2, cols=H1, act=relu, batch=B
        pfp     u=2, a=TH2, sa=H2, syn=PIT3, dst=TL, sd=ACT, rows=ACT, cols=H2, batch=B
        pgs     u=29, a=TL, sa=ACT, b=GT, sb=ACT, dst=YN, sd=ACT, rows=ACT, batch=B
        pfp     u=6, a=X, sa=QIN, syn=Q1, dst=QH1, sd=H1, rows=H1, cols=QIN, act=relu, batch=B
        pfp     u=7, a=QH1, sa=H1, syn=Q2, dst=QH2, sd=H2, rows=H2, cols=H1, act=relu, batch=B
        pfp     u=8, a=QH2, sa=H2, syn=Q3, dst=Q, sd=1, rows=1, cols=H2, batch=B
; ---- policy pipeline: action, value of it, BP through q and pi, WU ----
        pfp     u=15, a=X + OOFF, sa=QIN, syn=PI1, dst=PH1, sd=H1, rows=H1, cols=OBS, act=relu, batch=B
        pfp     u=16, a=PH1, sa=H1, syn=PI2, dst=PH2, sd=H2, rows=H2, cols=H1, act=relu, batch=B
        pfp     u=17, a=PH2, sa=H2, syn=PI3, dst=PL, sd=ACT, rows=ACT, cols=H2, batch=B
        pgs     u=30, a=PL, sa=ACT, b=GP, sb=ACT, dst=Y, sd=ACT, rows=ACT, batch=B
        pfpo    u=18, a=X, sa=QIN, b=Y, sb=ACT, syn=Q1, dst=PQH1, sd=H1, rows=H1, cols=QIN, off=ACOL, len=ACT, act=relu, batch=B
        pfp     u=19, a=PQH1, sa=H1, syn=Q2, dst=PQH2, sd=H2, rows=H2, cols=H1, act=relu, batch=B
        pfp     u=20, a=PQH2, sa=H2, syn=Q3, dst=PQ, sd=1, rows=1, cols=H2, batch=B
        pbp     u=21, a=NEGB, sa=0, b=PQH2, sb=H2, syn=Q3, dst=PE2, sd=H2, rows=1, cols=H2, off=0, len=H2, act=relu, batch=B
        pbp     u=22, a=PE2, sa=H2, b=PQH1, sb=H1, syn=Q2, dst=PE1, sd=H1, rows=H2, cols=H1, off=0, len=H1, act=relu, batch=B
        pbp     u=23, a=PE1, sa=H1, syn=Q1, dst=DA, sd=ACT, rows=H1, cols=QIN, off=ACOL, len=ACT, batch=B
        pgb     u=31, a=DA, sa=ACT, b=Y, sb=ACT, c=PL, sc=ACT, k=REG, dst=DL, sd=ACT, rows=ACT, batch=B
        pbp     u=24, a=DL, sa=ACT, b=PH2, sb=H2, syn=PI3, dst=AE2, sd=H2, rows=ACT, cols=H2, off=0, len=H2, act=relu, batch=B
        pbp     u=25, a=AE2, sa=H2, b=PH1, sb=H1, syn=PI2, dst=AE1, sd=H1, rows=H2, cols=H1, off=0, len=H1, act=relu, batch=B
        pwu     u=26, a=DL, sa=ACT, b=PH2, sb=H2, syn=GPI3, rows=ACT, cols=H2, batch=B
        pwu     u=27, a=AE2, sa=H2, b=PH1, sb=H1, syn=GPI2, rows=H2, cols=H1, batch=B
        pwu     u=28, a=AE1, sa=H1, b=X + OOFF, sb=QIN, syn=GPI1, rows=H1, cols=OBS, batch=B
; ---- the ring (issued after every stream that does not need it: the controller waits
;      here until every learner has issued its rgather), then the rest of the value
;      pipeline: the target value, the loss, BP and WU ----
        rgather a=YN, sa=ACT, dst=AG, sd=SUMACT, n=ACT, m=SUMACT, batch=B
        ; [o', a'] with a' every agent's (MADDPG, from the ring) or the agent's own (DDPG)
        pfpo    u=3, a=XN, sa=NOBS, b=AG + DDPG * (YN - AG), sb=NACT, syn=QT1, dst=QTH1, sd=H1, rows=H1, cols=QIN, off=NOBS, len=NACT, act=relu, batch=B
        pfp     u=4, a=QTH1, sa=H1, syn=QT2, dst=QTH2, sd=H2, rows=H2, cols=H1, act=relu, batch=B
        pfp     u=5, a=QTH2, sa=H2, syn=QT3, dst=QN, sd=1, rows=1, cols=H2, batch=B
        ploss   u=9, a=Q, sa=1, b=QN, sb=1, c=RD, sc=2, k=GAM, dst=DQ, sd=1, batch=B
        pbp     u=10, a=DQ, sa=1, b=QH2, sb=H2, syn=Q3, dst=E2, sd=H2, rows=1, cols=H2, off=0, len=H2, act=relu, batch=B
        pbp     u=11, a=E2, sa=H2, b=QH1, sb=H1, syn=Q2, dst=E1, sd=H1, rows=H2, cols=H1, off=0, len=H1, act=relu, batch=B
        pwu     u=12, a=DQ, sa=1, b=QH2, sb=H2, syn=GQ3, rows=1, cols=H2, batch=B
        pwu     u=13, a=E2, sa=H2, b=QH1, sb=H1, syn=GQ2, rows=H2, cols=H1, batch=B
        pwu     u=14, a=E1, sa=H1, b=X, sb=QIN, syn=GQ1, rows=H1, cols=QIN, batch=B
        uwait
; ---- apply the batch's gradients on the WU units, then move the targets ----
        gclip   u=28, dst=GPI1, n=H1 * OBS, k=CLIPW         ; every tensor on its own (W, b)
        gclip   u=27, dst=GPI2, n=H2 * H1, k=CLIPW
        gclip   u=26, dst=GPI3, n=ACT * H2, k=CLIPW
        gclip   u=14, dst=GQ1, n=H1 * QIN, k=CLIPW
        gclip   u=13, dst=GQ2, n=H2 * H1, k=CLIPW
        gclip   u=12, dst=GQ3, n=H2, k=CLIPW
        gclip   u=28, dst=GPI1 + H1 * OBS, n=H1, k=CLIPW
        gclip   u=27, dst=GPI2 + H2 * H1, n=H2, k=CLIPW
        gclip   u=26, dst=GPI3 + ACT * H2, n=ACT, k=CLIPW
        gclip   u=14, dst=GQ1 + H1 * QIN, n=H1, k=CLIPW
        gclip   u=13, dst=GQ2 + H2 * H1, n=H2, k=CLIPW
        gclip   u=12, dst=GQ3 + H2, n=1, k=CLIPW
        wadam   u=28, dst=PI1, src=GPI1, m=MPI1, v=VPI1, n=NPI1, k=LRT
        wadam   u=27, dst=PI2, src=GPI2, m=MPI2, v=VPI2, n=NPI2, k=LRT
        wadam   u=26, dst=PI3, src=GPI3, m=MPI3, v=VPI3, n=NPI3, k=LRT
        wadam   u=14, dst=Q1, src=GQ1, m=MQ1, v=VQ1, n=NQ1, k=LRT
        wadam   u=13, dst=Q2, src=GQ2, m=MQ2, v=VQ2, n=NQ2, k=LRT
        wadam   u=12, dst=Q3, src=GQ3, m=MQ3, v=VQ3, n=NQ3, k=LRT
        wst     u=15, src=PI1, n=NPI1, k=POL
        wst     u=16, src=PI2, n=NPI2, k=POL + NPI1
        wst     u=17, src=PI3, n=NPI3, k=POL + NPI1 + NPI2
        wsoft   u=0, dst=PIT1, src=PI1, n=NPI1, k=TAUW
        wsoft   u=1, dst=PIT2, src=PI2, n=NPI2, k=TAUW
        wsoft   u=2, dst=PIT3, src=PI3, n=NPI3, k=TAUW
        wsoft   u=3, dst=QT1, src=Q1, n=NQ1, k=TAUW
        wsoft   u=4, dst=QT2, src=Q2, n=NQ2, k=TAUW
        wsoft   u=5, dst=QT3, src=Q3, n=NQ3, k=TAUW
        cc.endmark 2
        cc.host out=POL, nout=NPOL, inp=ACK, nin=1         ; the new policy to the host
        barrier                                            ; every learner's policy is back
        cc.endmark 1
        cc.jmp  round
finish: cc.halt
