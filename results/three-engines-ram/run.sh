#!/usr/bin/env bash
# The tps table of issue 5: W in {1,4} x T in {16,64} x {solo, sqlite, postgres},
# storage ram, release build, 5 s warm-up + 20 s measured, engines alternating.
#   results/three-engines-ram/run.sh   (from the project root)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=results/three-engines-ram/raw
mkdir -p "$out"
for w in 1 4; do
  for t in 16 64; do
    for e in solo sqlite postgres; do
      echo "== $e W=$w T=$t"
      build/release/tpcc/tpcc run --engine "$e" --warehouses "$w" --terminals "$t" \
        --warmup 5 --duration 20 --quiet --json "$out/$e-w$w-t$t.json" 2>&1 | tail -n 4
    done
  done
done
