#!/usr/bin/env bash
# A PostgreSQL that cannot start is reported by the harness in one clear line,
# with a non-zero exit status, and the harness cleans up what it created.
# Usage: pg_start_failure_test.sh PATH/TO/tpcc PATH/TO/scripts/pg
set -u
tpcc=$1
pg=$2
failures=0
scratch=$(mktemp -d /dev/shm/solo-pg-fail.XXXXXX)
chmod 0755 "$scratch"
cleanup() {
  "$pg" stop --dir "$scratch/broken-config" >/dev/null 2>&1
  chmod -R u+rwx "$scratch" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_start_failure DIR PATTERN: `tpcc load` against a private cluster in DIR
# exits 1 with exactly one stderr line that matches PATTERN.
expect_start_failure() {
  local dir=$1 pattern=$2 err status lines
  err=$("$tpcc" load --engine postgres --dir "$dir" --quiet 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [[ $status -ne 1 ]] || [[ $lines -ne 1 ]] || ! grep -qE -- "$pattern" <<<"$err"; then
    fail "tpcc load --dir $dir -> status $status (want 1), stderr ($lines lines, want 1 matching '$pattern'):"
    printf '  %s\n' "$err"
  else
    echo "ok: $dir -> $status: $err"
  fi
}

no_server_for() {  # DIR: no postmaster runs for DIR/data
  local pid_file=$1/data/postmaster.pid pid
  [[ -f $pid_file ]] || return 0
  pid=$(head -n1 "$pid_file")
  ! kill -0 "$pid" 2>/dev/null
}

# 1. The data directory's place holds something else: initdb cannot run.
mkdir "$scratch/not-a-cluster"
echo "not a data directory" >"$scratch/not-a-cluster/data"
# The marker: a non-empty directory without it is refused before any start
# (tests/tpcc/owned_dir_test.sh).
touch "$scratch/not-a-cluster/tpcc-owned"
expect_start_failure "$scratch/not-a-cluster" "not a data directory"
[[ -f $scratch/not-a-cluster/data ]] || fail "the harness removed a file it did not create"

# 2. The server itself refuses to start (a bad setting in an existing cluster):
#    the reason comes from the server's log, and no server is left running.
"$pg" start --dir "$scratch/broken-config" --terminals 4 >/dev/null || fail "scripts/pg start"
"$pg" stop --dir "$scratch/broken-config" >/dev/null || fail "scripts/pg stop"
echo "shared_buffers = 'banana'" >>"$scratch/broken-config/data/postgresql.conf"
expect_start_failure "$scratch/broken-config" "did not start.*shared_buffers"
no_server_for "$scratch/broken-config" || fail "a server still runs after the failed start"
[[ -f $scratch/broken-config/data/PG_VERSION ]] || fail "the harness removed a cluster it did not create"

# 3. The directory cannot be used (its parent is closed to the server's user,
#    or to us): the directory the attempt created is removed again.
mkdir "$scratch/closed"
if [[ $(id -u) -eq 0 ]]; then chmod 0700 "$scratch/closed"; else chmod 0500 "$scratch/closed"; fi
expect_start_failure "$scratch/closed/pg" "error: (cannot create|user postgres cannot write)"
[[ ! -e $scratch/closed/pg ]] || fail "the failed start left $scratch/closed/pg behind"

# 4. The socket is taken: another live process holds DIR's socket lock file
#    (as a server of another data directory listening there would).
mkdir "$scratch/socket-taken"
touch "$scratch/socket-taken/tpcc-owned"
if [[ $(id -u) -eq 0 ]]; then
  chown postgres "$scratch/socket-taken"
  runuser -u postgres -- sleep 300 &
else
  sleep 300 &
fi
holder=$!
sleep 0.2
holder_pid=$(pgrep -n -x sleep -P "$holder" 2>/dev/null || echo "$holder")
printf '%s\n%s\n' "$holder_pid" "$scratch/socket-taken" >"$scratch/socket-taken/.s.PGSQL.5432.lock"
expect_start_failure "$scratch/socket-taken" "did not start.*lock file"
no_server_for "$scratch/socket-taken" || fail "a server still runs after the failed start"
[[ ! -e $scratch/socket-taken/data ]] || fail "the failed start left its new data directory behind"
kill "$holder" "$holder_pid" 2>/dev/null

if [[ $failures -eq 0 ]]; then echo "all start failures reported"; fi
exit $((failures > 0))
