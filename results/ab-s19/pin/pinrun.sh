#!/bin/bash
# usage: pinrun.sh OUT.json [pin]  -- W=1 T=64 ram run; with "pin": owner on cpu 0, every other thread on cpu 1
out=$1; pin=$2
bin=/work/main/build/release/tpcc/tpcc
rm -rf /dev/shm/q && cp -r /dev/shm/q0 /dev/shm/q
$bin run --engine solo --dir /dev/shm/q --no-load --warehouses 1 --terminals 64 --duration 10 --warmup 3 --no-check --json $out > ${out%.json}.txt 2>&1 &
pid=$!
if [ "$pin" = pin ]; then
  sleep 1.5
  for t in /proc/$pid/task/*; do
    tid=${t##*/}; name=$(cat $t/comm)
    if [ "$name" = solo-owner ]; then taskset -p -c 0 $tid >/dev/null; else taskset -p -c 1 $tid >/dev/null; fi
  done
  sleep 3; for t in /proc/$pid/task/*; do tid=${t##*/}; name=$(cat $t/comm); if [ "$name" = solo-owner ]; then taskset -p -c 0 $tid >/dev/null; else taskset -p -c 1 $tid > /dev/null; fi; done
fi
wait $pid
