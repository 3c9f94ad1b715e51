#!/bin/bash
# Same binary, alternating: split Delivery at T=64 (--delivery-districts 1)
# against whole Deliveries at T=44, which keeps about as many New-Order and
# Payment terminals busy (a split Delivery holds ~32% of terminal time).
# usage: abt.sh ROUNDS OUTDIR (a loaded W=1 solo database in /dev/shm/q0)
rounds=${1:-3} out=${2:-/tmp/abt}
mkdir -p "$out"
T=${TPCC:-$(dirname "$0")/../../build/release/tpcc/tpcc}
for r in $(seq 1 "$rounds"); do
  for v in d1t64 d10t44; do
    if [ $v = d1t64 ]; then args="--terminals 64 --delivery-districts 1"; else args="--terminals 44 --delivery-districts 10"; fi
    rm -rf /dev/shm/q1; cp -r /dev/shm/q0 /dev/shm/q1
    $T run --engine solo --dir /dev/shm/q1 --no-load --no-check --warehouses 1 $args \
      --warmup 3 --duration 10 --json "$out/$v-$r.json" >/dev/null 2>&1
    python3 -c "
import json
d=json.load(open('$out/$v-$r.json')); n=d['per_type']['new_order']
print('$r $v', round(d['tps']), 'NO p50/p99', n['p50_ms'], n['p99_ms'])"
  done
done
rm -rf /dev/shm/q1
