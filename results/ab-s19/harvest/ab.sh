#!/bin/bash
# usage: abd2.sh OUTDIR PAIRS ARGS_A -- ARGS_B : same binary, alternating; env HARVEST passes through
out=$1; pairs=$2; shift 2
a=(); b=(); cur=a
for x in "$@"; do if [ "$x" = "--" ]; then cur=b; continue; fi; if [ $cur = a ]; then a+=("$x"); else b+=("$x"); fi; done
mkdir -p $out
bin=/work/main/build/release/tpcc/tpcc
for i in $(seq 1 $pairs); do
  for mode in A B; do
    rm -rf /dev/shm/q && cp -r /dev/shm/q0 /dev/shm/q
    if [ $mode = A ]; then extra=("${a[@]}"); else extra=("${b[@]}"); fi
    envs=(); args=(); for x in "${extra[@]}"; do if [[ "$x" == --* ]]; then args+=("$x"); else envs+=("$x"); fi; done
    env "${envs[@]}" $bin run "${args[@]}" --engine solo --dir /dev/shm/q --no-load --warehouses 1 --terminals 64 --duration 10 --warmup 3 --no-check --json $out/$mode-$i.json > $out/$mode-$i.txt 2>&1
  done
done
rm -rf /dev/shm/q
python3 - $out <<'PY'
import json,glob,sys,statistics as st
d=sys.argv[1]
res={}
for mode in ['A','B']:
  rows=[]
  for f in sorted(glob.glob(f'{d}/{mode}-*.json')):
    r=json.load(open(f)); pt=r['per_type']['new_order']
    rows.append((r['tps'],pt['p50_ms'],pt['p99_ms'],pt.get('answer_p99_ms'),r['cpu_us_per_txn']))
  res[mode]=rows
  print(mode, ' '.join(f"[{t:.0f} {a:.2f} {b:.2f} {c:.2f} {u:.1f}]" for t,a,b,c,u in rows))
  print('   median tps %.0f p50 %.2f p99 %.2f ans99 %.2f cpu %.1f'%tuple(st.median(x[i] for x in rows) for i in range(5)))
print('per-pair tps B/A', ' '.join('%.2f'%(b[0]/a[0]) for a,b in zip(res['A'],res['B'])), ' p99 B-A', ' '.join('%.2f'%(b[2]-a[2]) for a,b in zip(res['A'],res['B'])))
PY
