#!/usr/bin/env bash
# Bad input to `tpcc` gets a one-line error naming the problem and a non-zero
# exit status; nothing crashes. Usage: cli_errors_test.sh PATH/TO/tpcc
set -u
tpcc=$1
failures=0
scratch=$(mktemp -d /dev/shm/solo-cli-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# expect STATUS PATTERN -- ARGS...: exit status STATUS, one stderr line matching PATTERN.
expect() {
  local want_status=$1 pattern=$2
  shift 3
  local err status
  err=$("$tpcc" "$@" 2>&1 >/dev/null)
  status=$?
  local lines
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [[ $status -ne $want_status ]] || ! grep -qE -- "$pattern" <<<"$err" || [[ $lines -ne 1 ]]; then
    echo "FAIL: tpcc $* -> status $status (want $want_status), stderr:"
    printf '  %s\n' "$err"
    failures=$((failures + 1))
  else
    echo "ok: tpcc $* -> $status: $err"
  fi
}

expect 2 "missing command" --
expect 2 "unknown command 'launch'" -- launch
expect 2 "unknown option '--wharehouses'" -- run --wharehouses 2
expect 2 "--warehouses must be between 1" -- run --warehouses 0
expect 2 "--terminals must be between 1" -- run --terminals 0
expect 2 "--drivers must be between 0 and 64" -- run --drivers 65
expect 2 "--connections must be between 0 and" -- run --connections -1
expect 2 "--delivery-districts must be between 1 and 10" -- run --delivery-districts 11
expect 2 "--delivery-districts must be between 1 and 10" -- run --delivery-districts 0
expect 2 "--duration expects a number of seconds" -- run --duration soon
expect 2 "--storage must be ram or disk" -- run --storage floppy
expect 2 "unknown engine|engine" -- run --engine oracle --dir "$scratch/x"
expect 1 "no TPC-C database at" -- check --dir "$scratch/nothing-here"
expect 1 "/etc/passwd" -- run --dir /etc/passwd/db --duration 1 --quiet
expect 1 "/proc" -- load --dir /proc/solo-cannot-create --quiet
# A check of a directory that was never completely loaded is refused.
mkdir -p "$scratch/empty"
expect 1 "no TPC-C database at|not loaded" -- check --dir "$scratch/empty"
[[ ! -e $scratch/nothing-here ]] || { echo "FAIL: check created $scratch/nothing-here"; failures=$((failures + 1)); }

if "$tpcc" --help | grep -q -- "--warehouses"; then echo "ok: --help"; else echo "FAIL: --help"; failures=$((failures + 1)); fi

echo "$failures failures"
[[ $failures -eq 0 ]]
