#!/usr/bin/env bash
# What `tpcc run` reports after a run: a short run passes (its audit says the
# sample is too small to judge instead of failing), and the fixed-size
# tables' cardinality is printed and enforced as by load, check and replay.
# Usage: run_test.sh PATH/TO/tpcc
set -u
tpcc=$1
scratch=$(mktemp -d /dev/shm/solo-run-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# has TEXT PATTERN WHAT: TEXT has a line matching PATTERN.
has() { grep -qE -- "$2" <<<"$1" || fail "$3: no line matching '$2'"; }

# Regression (probe items 2 and 3): `run --transactions 10` failed its mix
# audit (no Order-Status among 10 transactions, "no transactions of this
# kind") and exited 1; and run printed no cardinality line.
out=$("$tpcc" run --engine sqlite --dir "$scratch/db" --transactions 10 --terminals 2 \
  --json "$scratch/short.json" --quiet 2>&1)
status=$?
echo "$out"
[[ $status -eq 0 ]] || fail "run --transactions 10 exited $status (want 0)"
has "$out" "^audit: [0-9]+/[0-9]+ within bounds, [0-9]+ not judged \(the run is too short" \
  "run --transactions 10"
has "$out" "order_status_by_name_pct .*not judged .*needs >= 24 \(a run of >= 600 transactions\)" \
  "run --transactions 10"
has "$out" "^  cardinality   ok    rows: warehouse 1, district 10, customer 30000, stock 100000, item 100000$" \
  "run --transactions 10"
has "$(cat "$scratch/short.json")" '"judged": false' "run --transactions 10 --json"
has "$(cat "$scratch/short.json")" '"cardinality": \{' "run --transactions 10 --json"

# An extra ITEM row (no transaction reads it, every condition holds) fails
# the run through its cardinality line.
sqlite3 "$scratch/db/tpcc.sqlite" \
  "INSERT INTO item SELECT 100001, i_im_id, i_name, i_price, i_data FROM item WHERE i_id = 1" ||
  fail "sqlite3 could not add an item"
out=$("$tpcc" run --engine sqlite --dir "$scratch/db" --no-load --transactions 10 --quiet 2>&1)
status=$?
echo "$out"
[[ $status -eq 1 ]] || fail "run with 100001 items exited $status (want 1)"
has "$out" "^consistency: [0-9]+/[0-9]+ conditions hold" "run with 100001 items"
has "$out" "^  cardinality   FAIL  item: 100001 rows, expected 100000 \(W=1 in tpcc_meta\)$" \
  "run with 100001 items"

echo "$failures failures"
[[ $failures -eq 0 ]]
