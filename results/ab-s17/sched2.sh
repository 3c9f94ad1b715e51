#!/bin/bash
# usage: sched2.sh MODE R
mode=$1; r=$2
T=/work/main/build/release/tpcc/tpcc
rm -rf /dev/shm/q1; cp -r /dev/shm/q0 /dev/shm/q1
$T run --engine solo --dir /dev/shm/q1 --no-load --no-check --warehouses 1 --terminals 64 --warmup 3 --duration 10 ${EXTRA} --json /tmp/rb/sched-$mode-$r.json >/dev/null 2>&1 &
sleep 1.5
pid=$(pgrep -f "tpcc run --engine solo --dir /dev/shm/q1" | head -1)
for tid in $(ls /proc/$pid/task); do
  c=$(cat /proc/$pid/task/$tid/comm)
  if [ "$c" = solo-ckpt ] || [ "$c" = solo-prefault ]; then
    case $mode in nice19) renice -n 19 -p $tid >/dev/null;; idle) chrt --idle -p 0 $tid;; esac
  fi
done
sleep 2.5
snap() { for tid in $(ls /proc/$pid/task); do echo "$(cat /proc/$pid/task/$tid/comm) $tid $(cat /proc/$pid/task/$tid/schedstat)"; done; }
snap > /tmp/rb/s1; sleep 8; snap > /tmp/rb/s2
wait
python3 - $mode $r <<'PY'
import json,sys
a={l.split()[1]:l.split() for l in open('/tmp/rb/s1')}
b={l.split()[1]:l.split() for l in open('/tmp/rb/s2')}
parts=[]
for tid in a:
    if tid not in b: continue
    x,y=a[tid],b[tid]
    run=(int(y[2])-int(x[2]))/1e6; wait=(int(y[3])-int(x[3]))/1e6; sl=int(y[4])-int(x[4])
    if run>100: parts.append(f'{x[0][5:] or "drv"}:{run:.0f}/{wait:.0f}/{sl}')
d=json.load(open(f'/tmp/rb/sched-{sys.argv[1]}-{sys.argv[2]}.json'))
n=d['per_type']['new_order']
print(sys.argv[1],sys.argv[2],round(d['tps']),n['p50_ms'],n['p90_ms'],n['p99_ms'],round(d['rss_over_state'],3),round(d['checkpoint_s_mean'],2),' '.join(parts))
PY
