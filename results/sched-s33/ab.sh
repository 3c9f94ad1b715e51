#!/bin/bash
# usage: ab.sh BIN PAIRS OUTDIR MODES...  (modes: default | pin | pindrv)
bin=$1; pairs=$2; out=$3; shift 3; modes="$@"
mkdir -p $out
for r in $(seq 1 $pairs); do
  for mode in $modes; do
    rm -rf /dev/shm/ab && cp -r /dev/shm/cg0 /dev/shm/ab
    $bin run --engine solo --dir /dev/shm/ab --no-load --no-check --warehouses 1 --terminals 64 --warmup 2 --duration 10 --quiet --seed $r --json $out/$mode-$r.json > $out/$mode-$r.log 2>&1 &
    sleep 0.3
    pid=$(pgrep -f "tpcc run --engine solo --dir /dev/shm/ab" | head -1)
    for i in $(seq 1 100); do grep -q tpcc-driver /proc/$pid/task/*/comm 2>/dev/null && break; sleep 0.05; done
    for tid in $(ls /proc/$pid/task); do
      c=$(cat /proc/$pid/task/$tid/comm 2>/dev/null)
      case "$mode:$c" in
        pin:solo-owner) taskset -p -c 0 $tid >/dev/null;;
        pin:tpcc-driver) taskset -p -c 1 $tid >/dev/null;;
      esac
    done
    wait
    python3 - $out/$mode-$r.json $mode $r <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); n=d['per_type']['new_order']
print(f"{sys.argv[3]} {sys.argv[2]:8s} tps {d['tps']:7.0f} p99 {n['p99_ms']:.2f} ans_p99 {n['answer_p99_ms']:.2f} p50 {n['p50_ms']:.2f} cpu {d['cpu_us_per_txn']:.1f}", flush=True)
PY
  done
done
