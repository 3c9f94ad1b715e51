#!/bin/bash
# same binary (HEAD), the prefaulter left idle or moved back to SCHED_OTHER after start
out=${OUT:-/tmp/rb/abp}; mkdir -p $out
T=/work/main/build/release/tpcc/tpcc
for r in 1 2 3 4 5 6 7 8; do
  if ((r % 2)); then order="idle other"; else order="other idle"; fi
  for v in $order; do
    rm -rf /dev/shm/q1; cp -r /dev/shm/q0 /dev/shm/q1
    $T run --engine solo --dir /dev/shm/q1 --no-load --no-check --warehouses 1 --terminals 64 --warmup 2 --duration 10 --json $out/$v-$r.json >/dev/null 2>&1 &
    sleep 1.2
    pid=$(pgrep -f "tpcc run --engine solo --dir /dev/shm/q1" | head -1)
    if [ $v = other ]; then for tid in $(ls /proc/$pid/task); do [ "$(cat /proc/$pid/task/$tid/comm)" = solo-prefault ] && chrt --other -p 0 $tid; done; fi
    wait
    python3 -c "
import json
d=json.load(open('$out/$v-$r.json')); n=d['per_type']['new_order']; print('$r $v', round(d['tps']), round(d['owner_us_per_write'],2), round(d['cpu_us_per_txn'],1), n['p90_ms'], n['p99_ms'], round(d['rss_over_state'],3), round(d['checkpoint_s_mean'],3), d['arenas_made_by_owner'])"
  done
done
