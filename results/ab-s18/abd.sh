#!/bin/bash
# Same binary, alternating: a Delivery as one database transaction
# (--delivery-districts 10) or as ten (1). W=1, T=64, 3 s warm-up + 10 s.
# usage: abd.sh ROUNDS ram|disk OUTDIR   (needs a loaded W=1 solo database in
#   /dev/shm/q0 for ram, /var/tmp/sd0 for disk: tpcc load --engine solo
#   [--storage disk] --dir D --warehouses 1); summary: abd-sum.py OUTDIR 1 10
rounds=${1:-4} storage=${2:-ram} out=${3:-/tmp/abd-$storage}
mkdir -p "$out"
T=${TPCC:-$(dirname "$0")/../../build/release/tpcc/tpcc}
if [ "$storage" = disk ]; then src=/var/tmp/sd0 dst=/var/tmp/sd1 st="--storage disk"
else src=/dev/shm/q0 dst=/dev/shm/q1 st=""; fi
for r in $(seq 1 "$rounds"); do
  if ((r % 2)); then order="10 1"; else order="1 10"; fi
  for v in $order; do
    rm -rf $dst; cp -r $src $dst
    $T run --engine solo $st --dir $dst --no-load --no-check --warehouses 1 --terminals 64 \
      --warmup 3 --duration 10 --delivery-districts $v --json "$out/$v-$r.json" >/dev/null 2>&1
    python3 -c "
import json
d=json.load(open('$out/$v-$r.json')); n=d['per_type']['new_order']; dl=d['per_type']['delivery']
print('$r d=$v', round(d['tps']), round(d['cpu_us_per_txn'],1), 'NO p50/p99', n['p50_ms'], n['p99_ms'], 'Del p50/p99', dl['p50_ms'], dl['p99_ms'], 'round p50/p99', d['round_p50_us_no_ckpt'], d['round_p99_us_no_ckpt'])"
  done
done
rm -rf $dst
