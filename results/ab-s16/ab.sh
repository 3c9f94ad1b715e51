#!/bin/bash
# alternating pairs: base (HEAD~1 build in /tmp/base) and new (build/release), ram then disk
out=/tmp/rb/ab2
for s in ram disk; do for r in 1 2 3 4 5 6; do
  if ((r % 2)); then order="new base"; else order="base new"; fi
  for v in $order; do
  if [ $v = base ]; then T=/tmp/base/build/release/tpcc/tpcc; else T=/work/main/build/release/tpcc/tpcc; fi
  if [ $s = ram ]; then src=/dev/shm/q0; d=/dev/shm/q1; else src=/var/tmp/sd0; d=/var/tmp/sd1; fi
  rm -rf $d; cp -r $src $d
  $T run --engine solo --storage $s --dir $d --no-load --no-check --warehouses 1 --terminals 64 --warmup 2 --duration 10 --json $out/$s-$v-$r.json >/dev/null 2>&1
  python3 -c "
import json
d=json.load(open('$out/$s-$v-$r.json')); print('$s $r $v', round(d['tps']), round(d['rss_over_state'],3), round((d['arena_bytes']-d['record_bytes']-d['node_bytes'])/1e6,1), round(d['owner_us_per_write'],2), round(d['owner_utilization'],3), round(d['cpu_us_per_txn'],1), d['per_type']['new_order']['p99_ms'], round(d['checkpoint_s_mean'],3))"
  done
done; done
