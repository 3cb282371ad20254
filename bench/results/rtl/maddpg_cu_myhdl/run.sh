#!/bin/bash
# maddpg_cu's 10,000 layers in MyHDL as ten runs of 1,000 (seeds 1..10), one log each here
# (docs/rtl.md, "10,000 transactions"). Resumable: a seed whose log reports its mismatches
# is skipped. Run from the repository root, in the background, at nice 19:
#   nohup bench/results/rtl/maddpg_cu_myhdl/run.sh > /tmp/maddpg_cu_myhdl.out 2>&1 &
cd "$(dirname "$0")/../../../.." || exit 1
dir=bench/results/rtl/maddpg_cu_myhdl
for s in 1 2 3 4 5 6 7 8 9 10; do
  f=$dir/seed$s.log
  grep -q "mismatches" "$f" 2>/dev/null && continue
  { date -u; /usr/bin/time -f "%e s wall %U s user" nice -n 19 .venv/bin/rlaccel cosim maddpg_cu \
      --n 1000 --seed $s --backend myhdl; date -u; } > "$f.tmp" 2>&1 && mv "$f.tmp" "$f"
done
