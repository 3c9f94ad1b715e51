#!/usr/bin/env bash
# run.sh NAME BINARY STORAGE [ENV=VAL...]: one tpcc run, output in /tmp/wt-ckpt-runs/NAME.{txt,json}
set -u
name=$1 bin=$2 storage=$3; shift 3
cd /work/wt-ckpt
if [[ $storage == disk ]]; then dir=build/ckpt-data; else dir=/dev/shm/ckpt-wt/solo; fi
{
  echo "# $(date -u +%FT%TZ) $name: env $* $bin run --engine solo --storage $storage --dir $dir --warehouses 1 --terminals 64 --duration 30 --solo-checkpoint-mib 64 --solo-checkpoint-ratio 0"
  echo "# uptime before: $(uptime)"
  env "$@" $bin run --engine solo --storage $storage --dir $dir --warehouses 1 --terminals 64 --duration 30 \
    --solo-checkpoint-mib 64 --solo-checkpoint-ratio 0 --json /tmp/wt-ckpt-runs/$name.json 2>&1 | grep -v '^\[ *[0-9]* s\]\|^loading'
  echo "# uptime after: $(uptime)"
} > /tmp/wt-ckpt-runs/$name.txt
python3 - /tmp/wt-ckpt-runs/$name.json "$(uptime | sed 's/.*average: //')" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
f=lambda k: d.get(k,0)
r=f('round_p99_us_ckpt')/f('round_p99_us_no_ckpt') if f('round_p99_us_no_ckpt') else float('nan')
print(f"{sys.argv[1].split('/')[-1]:28s} tps {f('tps'):6.0f} rp99 {f('round_p99_us_no_ckpt')/1e3:6.1f}/{f('round_p99_us_ckpt')/1e3:6.1f} ms ratio {r:4.2f} rounds {f('rounds_no_ckpt'):.0f}/{f('rounds_ckpt'):.0f} batch p99 {f('log_batch_p99_us_no_ckpt')/1e3:6.1f}/{f('log_batch_p99_us_ckpt')/1e3:6.1f} ckpts {f('checkpoints_in_window'):.0f} ckpt_s {f('checkpoint_s_mean'):.2f} sync_s {f('checkpoint_sync_s_mean'):.2f} max {f('checkpoint_s_max'):.2f} load {sys.argv[2]}")
PY
