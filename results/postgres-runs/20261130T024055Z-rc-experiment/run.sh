#!/usr/bin/env bash
# alternating RR (committed code) vs RC (reordered statements, experiment) on one W=1 ram cluster
set -u
out=/tmp/pgexp/$1; mkdir -p $out
dir=/dev/shm/solo-pg-exp
S=/tmp/solo-wt/scripts/pg
$S start --dir $dir --terminals 64
/tmp/tpcc-rr load --engine postgres --dir $dir --warehouses 1 --quiet --no-check
for T in 4 16; do
  for pair in 1 2 3; do
    for v in rr rc; do
      echo "$(date +%T) T=$T pair=$pair $v load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $out/log
      if [[ $v == rr ]]; then bin=/tmp/tpcc-rr; env=""; else bin=/tmp/tpcc-rc; env="SOLO_PG_ISOLATION=rc"; fi
      env $env $bin run --engine postgres --dir $dir --no-load --terminals $T --duration 20 --quiet --json $out/$v-t$T-$pair.json > $out/$v-t$T-$pair.txt 2>&1
      grep -E "committed|conditions hold|error" $out/$v-t$T-$pair.txt | tee -a $out/log
    done
  done
done
$S stop --dir $dir --remove
