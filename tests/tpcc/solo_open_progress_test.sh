#!/usr/bin/env bash
# Opening a solo database that takes more than half a second (recovery:
# the checkpoint's load, the log's replay) shows its progress on stderr; it
# showed nothing for as long as a large database took. A W=1 database
# opens faster than that, so the test asks for a line after every block
# (SOLO_TPCC_TEST_RECOVERY_PROGRESS_MS=0); --quiet shows none.
# Usage: solo_open_progress_test.sh PATH/TO/tpcc
set -u
tpcc=$1
scratch=$(mktemp -d /dev/shm/solo-open-progress.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
has() { grep -qE -- "$2" <<<"$1" || fail "$3: no line matching '$2'"; }

"$tpcc" load --engine solo --dir "$scratch/db" --quiet --no-check || fail "load"
err=$(SOLO_TPCC_TEST_RECOVERY_PROGRESS_MS=0 "$tpcc" check --engine solo --dir "$scratch/db" 2>&1 >/dev/null)
echo "$err" | head -5
has "$err" "^solo: recovering $scratch/db: checkpoint [0-9]+ MB of [0-9]+ MB \([0-9]+%\)$" "check"
has "$err" "^solo: recovered $scratch/db: checkpoint ([0-9]+) MB of \1 MB \(100%\)$" "check"
# The percentages only grow.
grep -oE "\(([0-9]+)%\)$" <<<"$err" | tr -d '()%' | sort -n -c || fail "check: the percentages go back"
# A run on top: its rounds are in the log (no checkpoint at close below
# 32 MiB of log), which the next open replays.
"$tpcc" run --engine solo --dir "$scratch/db" --no-load --no-check --transactions 2000 --quiet \
  --solo-checkpoint-mib 1048576 || fail "run"
err=$(SOLO_TPCC_TEST_RECOVERY_PROGRESS_MS=0 "$tpcc" check --engine solo --dir "$scratch/db" 2>&1 >/dev/null)
has "$err" "^solo: recovering $scratch/db: log [0-9]+ MB, [0-9]+ rounds$" "check after a run"
has "$err" "^solo: recovered $scratch/db: log [0-9]+ MB, [0-9]+ rounds$" "check after a run"
err=$(SOLO_TPCC_TEST_RECOVERY_PROGRESS_MS=0 "$tpcc" check --engine solo --dir "$scratch/db" --quiet 2>&1 >/dev/null)
[[ -z $err ]] || fail "check --quiet printed: $err"

if ((failures == 0)); then echo "opening shows its progress"; fi
exit $((failures > 0))
