#!/bin/bash
# usage: ab2.sh PAIRS DURATION BIN_A BIN_B [tpcc run args...]  alternating A B A B
pairs=$1; dur=$2; A=$3; B=$4; shift 4
for i in $(seq 1 $pairs); do
  for side in A B; do
    if [ $side = A ]; then bin=$A; else bin=$B; fi
    rm -rf /dev/shm/ab-solo
    $bin run --engine solo --dir /dev/shm/ab-solo --duration $dur --warmup 2 --quiet --no-check --json /tmp/ab-$side-$i.json "$@" >/dev/null 2>&1
    python3 -c "
import json;d=json.load(open('/tmp/ab-$side-$i.json'));print('$side',$i,round(d['tps']),'cpu',round(d['cpu_us_per_txn'],1),'own',round(d['owner_us_per_write'],1),'util',round(d['owner_utilization'],3),'no_p99',d['per_type']['new_order']['p99_ms'],'rss/st',round(d['rss_over_state'],2))"
  done
done
