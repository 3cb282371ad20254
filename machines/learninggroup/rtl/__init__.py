"""RTL of LearningGroup's blocks: the FP16 vector processing unit (:mod:`.vpu`) and
the OSEL sparse data encoder with its sparse row memory (:mod:`.osel`). See docs/rtl.md."""
