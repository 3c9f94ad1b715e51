#!/usr/bin/env bash
# Bad input to `tpcc` gets a one-line error naming the problem and a non-zero
# exit status; nothing crashes. Usage: cli_errors_test.sh PATH/TO/tpcc
set -u
tpcc=$1
failures=0
scratch=$(mktemp -d /dev/shm/solo-cli-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# Relative paths (such as a file named --no-load) land in the scratch directory.
cd "$scratch" || exit 1

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

# fail MESSAGE: a failed check of the files a command left behind.
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Regression (probe item 3): an empty --opt= took the next argument as its
# value: --no-load became the JSON path, and the database was reloaded.
mkdir -p "$scratch/item3"
expect 2 "--json needs a value" -- run --dir "$scratch/item3" --json= --no-load --duration 1 --quiet
expect 2 "--dir needs a value" -- check --dir= --quiet
[[ ! -e $scratch/--no-load && ! -e $scratch/item3/tpcc.sqlite ]] || fail "run --json= --no-load wrote files"

# Regression (probe item 9): a read-only command on solo created a database
# (160 MB of log) in a missing or empty directory, or beside a SQLite one.
expect 1 "no TPC-C database at $scratch/solo-none;" -- check --engine solo --dir "$scratch/solo-none"
[[ ! -e $scratch/solo-none ]] || fail "check --engine solo created $scratch/solo-none"
mkdir -p "$scratch/solo-empty"
expect 1 "no TPC-C database at" -- run --engine solo --dir "$scratch/solo-empty" --no-load --duration 1 --quiet
[[ -z $(ls -A "$scratch/solo-empty") ]] || fail "run --no-load created files: $(ls -A "$scratch/solo-empty")"
mkdir -p "$scratch/sqlite-db" && echo "not solo" >"$scratch/sqlite-db/tpcc.sqlite"
expect 1 "no TPC-C database at" -- check --engine solo --dir "$scratch/sqlite-db"
[[ $(ls -A "$scratch/sqlite-db") == tpcc.sqlite ]] || fail "check --engine solo wrote beside tpcc.sqlite"

# Regression (probe item 8): solo's failures to open (damaged, locked, no
# permission) exited 2, the usage error's status.
mkdir -p "$scratch/solo-damaged"
head -c 4096 /dev/urandom >"$scratch/solo-damaged/checkpoint-00000000000000000001.ckpt"
expect 1 "solo: cannot open" -- check --engine solo --dir "$scratch/solo-damaged" --quiet
expect 1 "solo: cannot create directory" -- load --engine solo --dir /proc/solo-cannot-create --quiet
expect 2 "unknown sqlite profile|profile" -- check --sqlite-profile no-such-profile --dir "$scratch/x"

# Regression (probe item 12): huge --duration / --warmup overflowed.
expect 2 "--duration must be at most 10000000 seconds" -- run --dir "$scratch/item12" --no-load --duration 1e10
expect 2 "--warmup must be at most 10000000 seconds" -- run --dir "$scratch/item12" --no-load --warmup 1e300

# Regression (probe item 13): a bad --journal or --json path was found only
# after the run (and its load), so the run's output was lost.
expect 1 "cannot write the journal file /proc/nope/j.txt: No such file" -- \
  run --dir "$scratch/item13" --journal /proc/nope/j.txt --duration 1 --quiet
expect 1 "cannot write the JSON file $scratch: Is a directory" -- \
  run --dir "$scratch/item13" --json "$scratch" --duration 1 --quiet
[[ ! -e $scratch/item13/tpcc.sqlite ]] || fail "run loaded before finding its bad output path"
expect 1 "cannot write the journal file /proc/nope/j.txt" -- \
  crosscheck --engines sqlite,solo --dir "$scratch/item13cc" --journal /proc/nope/j.txt \
  --transactions 50 --quiet
[[ ! -e $scratch/item13cc/sqlite ]] || fail "crosscheck loaded before finding its bad journal path"

# Regression (probe item 7): options a command does not use were ignored.
# (Each names a scratch --dir, so that a tpcc without the fix touches no
# default directory.)
expect 2 "--json does not apply to .tpcc check." -- check --dir "$scratch/item7" --json "$scratch/check.json"
expect 2 "--journal does not apply to .tpcc load." -- \
  load --dir "$scratch/item7" --journal "$scratch/j.txt" --no-check --quiet
expect 2 "--json does not apply to .tpcc crosscheck." -- \
  crosscheck --engines sqlite,solo --dir "$scratch/item7cc" --transactions 50 --json "$scratch/c.json" --quiet

# Regression (probe item 14): a repeated engine ran and compared one
# database (DIR/<engine>) against itself, or failed on solo's lock.
expect 2 "--engines names 'solo' twice in 'solo,solo'" -- \
  crosscheck --engines solo,solo --dir "$scratch/item14" --transactions 50 --quiet
expect 2 "--engines names 'sqlite' twice" -- \
  crosscheck --engines sqlite,solo,sqlite --dir "$scratch/item14" --transactions 50 --quiet
[[ ! -e $scratch/item14 ]] || fail "crosscheck with a repeated engine created $scratch/item14"

# Regression (probe item 1): --solo-checkpoint-mib 0 turned solo's automatic
# checkpoints off, and 2^44 MiB or more overflowed once shifted to bytes.
expect 2 "--solo-checkpoint-mib must be between 1 and 1048576, got 0" -- \
  run --engine solo --dir "$scratch/item1" --solo-checkpoint-mib 0 --duration 1 --quiet
expect 2 "--solo-checkpoint-mib must be between 1 and 1048576, got 17592186044416" -- \
  run --engine solo --dir "$scratch/item1" --solo-checkpoint-mib 17592186044416 --duration 1 --quiet
[[ ! -e $scratch/item1 ]] || fail "a refused --solo-checkpoint-mib created $scratch/item1"

# A load that cannot fit in memory is refused at once, before anything is
# created (it ran for minutes, then ended in the out-of-memory kill).
expect 1 "10000 warehouses need about 1562.5 GiB of memory for solo, but .* GiB is available" -- \
  load --engine solo --warehouses 10000 --dir "$scratch/huge-solo" --quiet
expect 1 "10000 warehouses need about .* GiB of memory for sqlite" -- \
  run --engine sqlite --storage ram --warehouses 10000 --dir "$scratch/huge-sqlite" --quiet
expect 1 "need about .* GiB of memory for sqlite and solo, but" -- \
  crosscheck --engines sqlite,solo --warehouses 10000 --dir "$scratch/huge-cc" --quiet
[[ ! -e $scratch/huge-solo && ! -e $scratch/huge-sqlite && ! -e $scratch/huge-cc ]] ||
  fail "a load refused for memory created its directory"

if "$tpcc" --help | grep -q -- "--warehouses"; then echo "ok: --help"; else echo "FAIL: --help"; failures=$((failures + 1)); fi

echo "$failures failures"
[[ $failures -eq 0 ]]
