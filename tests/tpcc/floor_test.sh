#!/usr/bin/env bash
# tpcc/tpcc_floor (results/engine-floor) keeps doing New-Order's work: on a
# freshly loaded W=1 database, a second of floor New-Orders adds exactly as
# many orders as it reports and leaves every consistency condition holding;
# bad input gets a one-line error and exit status 1.
# Usage: floor_test.sh PATH/TO/tpcc PATH/TO/tpcc_floor
set -u
tpcc=$1
floor=$2
scratch=$(mktemp -d /dev/shm/solo-floor-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

orders() {  # the ORDERS count condition 5 reports
  "$tpcc" check --engine solo --dir "$scratch/db" --warehouses 1 2>&1 |
    sed -n 's/^ *condition  5  ok  *\([0-9]*\) orders.*/\1/p'
}

if ! "$tpcc" load --engine solo --storage ram --dir "$scratch/db" --warehouses 1 >/dev/null 2>&1; then
  echo "FAIL: tpcc load"
  exit 1
fi
loaded=$(orders)
[[ -n $loaded ]] || fail "no order count after the load"
out=$("$floor" --dir "$scratch/db" --seconds 1 --terminals 8 2>&1) || fail "tpcc_floor: $out"
echo "$out"
done_count=$(sed -n 's/^new_orders \([0-9]*\) in .*/\1/p' <<<"$out")
if [[ -z $done_count || $done_count -le 0 ]]; then
  fail "tpcc_floor reported no New-Orders"
fi
check=$("$tpcc" check --engine solo --dir "$scratch/db" --warehouses 1 2>&1)
status=$?
if [[ $status -ne 0 ]] || grep -qiE "fail|violat" <<<"$check"; then
  fail "consistency check after the floor run (status $status):"
  printf '  %s\n' "$check"
fi
after=$(orders)
if [[ -z $loaded || -z $done_count || $after != $((loaded + done_count)) ]]; then
  fail "orders: $loaded loaded + $done_count New-Orders, $after found"
else
  echo "ok: $loaded + $done_count = $after orders, every condition holds"
fi

# expect PATTERN ARGS...: exit status 1 and one stderr line matching PATTERN.
expect() {
  local pattern=$1
  shift
  local err status
  err=$("$floor" "$@" 2>&1 >/dev/null)
  status=$?
  if [[ $status -ne 1 ]] || ! grep -qE -- "$pattern" <<<"$err" || [[ $(grep -c . <<<"$err") -ne 1 ]]; then
    fail "tpcc_floor $* -> status $status, stderr: $err"
  else
    echo "ok: tpcc_floor $* -> $status: $err"
  fi
}
expect "--dir DIR is required"
expect "unknown option --bogus" --bogus 1
expect "missing value for --seconds" --dir "$scratch/db" --seconds
expect "no table warehouse" --dir "$scratch/empty"
expect "--seconds must be > 0" --dir "$scratch/db" --seconds 0
expect "bad number .1x. for --terminals" --dir "$scratch/db" --terminals 1x

exit $((failures > 0))
