#!/usr/bin/env bash
# What `tpcc run` reports after a run: a short run passes (its audit says the
# sample is too small to judge instead of failing), and the fixed-size
# tables' cardinality is printed and enforced as by load, check and replay.
# compare-table's checks cell shows both.
# Usage: run_test.sh PATH/TO/tpcc PATH/TO/compare-table
set -u
tpcc=$1
compare_table=$2
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
has "$out" "^audit: [0-9]+/[0-9]+ within bounds, [0-9]+ not judged \(the run is too short for them\), 2 not applicable$" \
  "run --transactions 10"
# W=1: the remote rates do not apply, and say so instead of "ok".
has "$out" "^  remote_payments_pct .* n/a  \(W=1: " "run --transactions 10"
has "$out" "order_status_by_name_pct .*not judged .*needs >= 24 \(a run of >= 600 transactions\)" \
  "run --transactions 10"
has "$out" "^  cardinality   ok    rows: warehouse 1, district 10, customer 30000, stock 100000, item 100000$" \
  "run --transactions 10"
has "$(cat "$scratch/short.json")" '"judged": false' "run --transactions 10 --json"
has "$(cat "$scratch/short.json")" '"applicable": false' "run --transactions 10 --json"
has "$(cat "$scratch/short.json")" '"cardinality": \{' "run --transactions 10 --json"
# compare-table counts only the judged audit entries (W=1's two remote rates
# apart, as n/a) and shows the row counts' check.
table=$("$compare_table" "$scratch/short.json" 2>&1)
echo "$table"
has "$table" "\| [0-9]+/[0-9]+ audit [0-9]+/[0-9]+ \([0-9]+ not judged, 2 n/a\) rows ok \|$" "compare-table"

# An extra ITEM row (no transaction reads it, every condition holds) fails
# the run through its cardinality line.
# (python3's sqlite3 module: meson needs python3; the sqlite3 shell is not a dependency)
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO item SELECT 100001, i_im_id, i_name, i_price, i_data FROM item WHERE i_id = 1")
db.commit()' "$scratch/db/tpcc.sqlite" || fail "could not add an item"
out=$("$tpcc" run --engine sqlite --dir "$scratch/db" --no-load --transactions 10 --quiet \
  --json "$scratch/items.json" 2>&1)
status=$?
echo "$out"
[[ $status -eq 1 ]] || fail "run with 100001 items exited $status (want 1)"
has "$out" "^consistency: [0-9]+/[0-9]+ conditions hold" "run with 100001 items"
has "$out" "^  cardinality   FAIL  item: 100001 rows, expected 100000 \(W=1 in tpcc_meta\)$" \
  "run with 100001 items"

has "$("$compare_table" "$scratch/items.json" 2>&1)" " rows FAIL \|$" "compare-table, 100001 items"

# A result that is not one (valid JSON, wrong shape) is refused with a message.
echo '{"engine": "x", "storage": "ram", "warehouses": 1, "terminals": 1, "tps": 1, "tpmC": 1,
  "per_type": {}, "cpu_us_per_txn": 1, "rss_bytes": 1, "checks": {}}' >"$scratch/bad.json"
out=$("$compare_table" "$scratch/bad.json" 2>&1)
status=$?
echo "$out"
[[ $status -eq 1 ]] || fail "compare-table on a malformed result exited $status (want 1)"
has "$out" "^compare-table: error: .*bad.json" "compare-table on a malformed result"

echo "$failures failures"
[[ $failures -eq 0 ]]
