#!/usr/bin/env bash
# run.sh N [TPCC] [OUT]: N runs of TPC-C W=1 T=64 on solo --storage disk with
# a checkpoint forced every 64 MiB of log (4-16 per 30 s window), each from a
# fresh load in build/ckpt-data; writes runN.json / runN.txt to OUT (default:
# this directory) and prints the owner's round p99 with and without a
# checkpoint being written.
set -u
root=$(cd "$(dirname "$0")/../../../.." && pwd)
n=${1:-3} tpcc=${2:-$root/build/release/tpcc/tpcc} out=${3:-$(dirname "$0")}
mkdir -p "$out" && cd "$out" || exit 1
dir=$root/build/ckpt-data
for i in $(seq 1 "$n"); do
  rm -rf "$dir"
  {
    echo "# $(date -u +%FT%TZ) $tpcc run --engine solo --storage disk --dir build/ckpt-data --warehouses 1 --terminals 64 --duration 30 --solo-checkpoint-mib 64 --solo-checkpoint-ratio 0"
    echo "# uptime before: $(uptime)"
    "$tpcc" run --engine solo --storage disk --dir "$dir" --warehouses 1 --terminals 64 --duration 30 \
      --solo-checkpoint-mib 64 --solo-checkpoint-ratio 0 --json "run$i.json" 2>&1 | grep -v '^\[ *[0-9]* s\]\|^loading'
    echo "# uptime after: $(uptime)"
  } > "run$i.txt"
  python3 - "run$i.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = lambda k: d.get(k, 0)
ratio = f('round_p99_us_ckpt') / f('round_p99_us_no_ckpt') if f('round_p99_us_no_ckpt') else float('nan')
print(f"{sys.argv[1]}: tps {f('tps'):.0f}  round p99 {f('round_p99_us_no_ckpt')/1e3:.2f} ms without / "
      f"{f('round_p99_us_ckpt')/1e3:.2f} ms during a checkpoint = {ratio:.2f}x  rounds {f('rounds_no_ckpt'):.0f}/"
      f"{f('rounds_ckpt'):.0f}  checkpoints {f('checkpoints_in_window'):.0f} (mean {f('checkpoint_s_mean'):.2f} s)  "
      f"log batch p99 {f('log_batch_p99_us_no_ckpt')/1e3:.1f}/{f('log_batch_p99_us_ckpt')/1e3:.1f} ms")
PY
done
rm -rf "$dir"
