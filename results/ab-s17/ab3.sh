#!/bin/bash
# 3-way alternation, W=1 T=64 ram: base (799e44e), mid (sql changes), new (HEAD: + prefault idle)
out=${OUT:-/tmp/rb/ab3}; mkdir -p $out
for r in 1 2 3 4 5 6 7 8; do
  case $((r % 3)) in 0) order="base mid new";; 1) order="mid new base";; 2) order="new base mid";; esac
  for v in $order; do
    case $v in base) T=/tmp/base/build/release/tpcc/tpcc;; mid) T=/tmp/mid/build/release/tpcc/tpcc;; new) T=/work/main/build/release/tpcc/tpcc;; esac
    rm -rf /dev/shm/q1; cp -r /dev/shm/q0 /dev/shm/q1
    $T run --engine solo --dir /dev/shm/q1 --no-load --no-check --warehouses 1 --terminals 64 --warmup 2 --duration 10 --json $out/$v-$r.json >/dev/null 2>&1
    python3 -c "
import json
d=json.load(open('$out/$v-$r.json')); n=d['per_type']['new_order']; print('$r $v', round(d['tps']), round(d['owner_us_per_write'],2), round(d['cpu_us_per_txn'],1), n['p90_ms'], n['p99_ms'], round(d['rss_over_state'],3), round(d['checkpoint_s_mean'],3))"
  done
done
