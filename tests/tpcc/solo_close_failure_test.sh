#!/usr/bin/env bash
# tpcc reports solo's failed checkpoints instead of exiting 0, and nothing
# committed is lost: the log recovers it. The failure is real: a file size
# limit (ulimit -f) that the 32 MiB log segments fit below and a W=1
# checkpoint (~100 MB) does not. tpcc ignores SIGXFSZ itself, so the write
# fails with EFBIG (it used to be killed by the signal, without a message).
# Usage: solo_close_failure_test.sh PATH/TO/tpcc
set -u
tpcc=$1
failures=0
scratch=$(mktemp -d /dev/shm/solo-close-failure.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
limit_kib=40000

# limited_load DIR ARGS...: `tpcc load` of W=1 under the limit; sets status and err.
limited_load() {
  local dir=$1
  shift
  err=$( (ulimit -f $limit_kib && exec "$tpcc" load --engine solo --warehouses 1 \
    --dir "$dir" --no-check --quiet "$@") 2>&1 >/dev/null)
  status=$?
}

# after DIR WHAT: no checkpoint .tmp is left, and the database checks out
# whole without the limit (its log recovered).
after() {
  local dir=$1 what=$2
  local tmps
  tmps=$(cd "$dir" && ls | grep '\.tmp$')
  [[ -z $tmps ]] || fail "$what: a .tmp was left: $tmps"
  local out
  out=$("$tpcc" check --engine solo --dir "$dir" --quiet 2>&1)
  if [[ $? -ne 0 ]] || ! grep -q "cardinality   ok" <<<"$out"; then
    fail "$what: tpcc check after the failure:"$'\n'"$out"
  else
    echo "ok: $what: tpcc check recovers the whole load"
  fi
}

# 1. Only the checkpoint at close is written (no trigger by log size): every
# load write is acknowledged, then close fails. tpcc must exit 1 naming it.
limited_load "$scratch/at-close" --solo-checkpoint-mib 1048576
case "$err" in
  *"closing $scratch/at-close: IOError: checkpoint at close: write "*".tmp at offset "*": File too large"*)
    [[ $status -eq 1 ]] && echo "ok: checkpoint at close: exit 1, $err" ||
      fail "checkpoint at close: exit $status (want 1): $err" ;;
  *) fail "checkpoint at close: exit $status, stderr: $err" ;;
esac
after "$scratch/at-close" "checkpoint at close"

# 2. The default trigger: a checkpoint during or after the load fails, which
# is fatal. Where the load's writes were all acknowledged first (the usual
# case here), tpcc exited 0: close() said OK after the failure.
limited_load "$scratch/background"
if [[ $status -eq 1 && $err == *"File too large"* ]]; then
  echo "ok: background checkpoint: exit 1, $err"
else
  fail "background checkpoint: exit $status (want 1 naming EFBIG), stderr: $err"
fi
[[ -z $(cd "$scratch/background" && ls | grep '\.tmp$') ]] || fail "background checkpoint: a .tmp was left"

echo "$failures failures"
[[ $failures -eq 0 ]]
