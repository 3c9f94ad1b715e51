#!/usr/bin/env bash
# Ctrl-C (SIGINT) or SIGTERM while `tpcc` loads or runs on a private
# PostgreSQL cluster it started: the harness stops that server before it
# exits with 128 + the signal, and keeps the data directory (as a normal exit
# does: a later `tpcc check` or `run --no-load` reads it). It used to die at
# once and leave the server running (2 GB of shared buffers, the socket).
# The signal goes to tpcc alone, not to the server's process group.
# Usage: pg_interrupt_test.sh PATH/TO/tpcc PATH/TO/scripts/pg
set -u
tpcc=$1 pg=$2
# Runs a command with SIGINT at its default action, as from a terminal: a
# shell starts background jobs with SIGINT ignored (and so does anything
# started from one), and tpcc keeps an ignored signal ignored.
# (An array, not a function: a function in the background is a subshell,
# and $! would be the subshell's pid.)
with_sigint=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')
failures=0
scratch=$(mktemp -d /dev/shm/solo-pg-interrupt.XXXXXX)
chmod 0755 "$scratch"
dir=$scratch/cluster
cleanup() {
  "$pg" stop --dir "$dir" >/dev/null 2>&1
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

alive() {  # PID: a process that is not a zombie
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

postmaster_pid() {  # the running postmaster of $dir/data, or nothing
  local pid
  pid=$(head -n1 "$dir/data/postmaster.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# interrupt SIGNAL WANT_STATUS PATTERN ARGS...: runs `tpcc ARGS` in the
# background, waits until its stderr matches PATTERN with the server up,
# sends SIGNAL to tpcc and checks what is left.
interrupt() {
  local signal=$1 want=$2 pattern=$3
  shift 3
  local err=$scratch/err-$signal failures_before=$failures
  "${with_sigint[@]}" "$tpcc" "$@" --engine postgres --dir "$dir" --terminals 2 2>"$err" >/dev/null &
  local pid=$! server="" waited
  for ((waited = 0; waited < 1200; waited++)); do
    server=$(postmaster_pid)
    [[ -n $server ]] && grep -qE "$pattern" "$err" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z $server ]] || ! grep -qE "$pattern" "$err"; then
    fail "$signal: the server or '$pattern' never came: $(tail -c 300 "$err")"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return
  fi
  local children
  children=$(pgrep -P "$server" | tr '\n' ' ')
  kill -"$signal" "$pid"
  local started=$SECONDS
  for ((waited = 0; waited < 600; waited++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$signal: tpcc still runs 60 s after the signal"
    kill -KILL "$pid"
  fi
  wait "$pid"
  local status=$?
  [[ $status -eq $want ]] || fail "$signal: exit status $status, want $want"
  grep -q "tpcc: SIG$signal: stopping" "$err" || fail "$signal: no line about the signal: $(tail -c 300 "$err")"
  # The postmaster removes its pid file just before it exits: a moment's grace.
  local left=" $server $children"
  for ((waited = 0; waited < 50 && ${#left} > 1; waited++)); do
    local still=""
    for p in $left; do alive "$p" && still+=" $p"; done
    left=$still
    [[ -z $left ]] || sleep 0.1
  done
  [[ -z $left ]] || fail "$signal: processes of the cluster still run:$left ($(ps -o pid,args -p "${left# }" | tail -n +2))"
  [[ -z $(postmaster_pid) ]] || fail "$signal: a postmaster still runs for $dir/data"
  [[ ! -e $dir/data/postmaster.pid ]] || fail "$signal: $dir/data/postmaster.pid is left (not a clean stop)"
  [[ ! -S $dir/.s.PGSQL.5432 ]] || fail "$signal: the socket is left"
  [[ -f $dir/data/PG_VERSION ]] || fail "$signal: the data directory is gone"
  ((failures == failures_before)) || return
  echo "ok: SIG$signal -> exit $status in $((SECONDS - started)) s, server $server and its $(wc -w <<<"$children") children stopped, data kept"
}

# 1. SIGINT during the load (a fresh cluster, started by this tpcc).
interrupt INT 130 "loading" run --warehouses 1 --duration 60
# 2. SIGTERM while the terminals run, on a loaded database.
"$tpcc" load --engine postgres --dir "$dir" --warehouses 1 --no-check --quiet || fail "load"
interrupt TERM 143 " run +[0-9]+ tps" run --no-load --duration 120
# 3. A server this tpcc did not start is left running.
"$pg" start --dir "$dir" --terminals 4 >/dev/null || fail "scripts/pg start"
before=$(postmaster_pid)
"${with_sigint[@]}" "$tpcc" run --engine postgres --dir "$dir" --no-load --terminals 2 --duration 60 \
  2>"$scratch/err-own" >/dev/null &
pid=$!
for ((waited = 0; waited < 600; waited++)); do
  grep -qE " run +[0-9]+ tps" "$scratch/err-own" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
status=$?
[[ $status -eq 130 ]] || fail "own server: exit status $status, want 130"
[[ -n $before && $(postmaster_pid) == "$before" ]] || fail "a server tpcc did not start was stopped"
echo "ok: SIGINT with a server tpcc did not start -> exit $status, server $before still runs"

if ((failures == 0)); then echo "interrupts clean up"; fi
exit $((failures > 0))
