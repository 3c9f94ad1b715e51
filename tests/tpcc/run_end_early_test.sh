#!/usr/bin/env bash
# `tpcc run` ends its window early and keeps what it measured: when the
# machine's available memory falls below --memory-floor-mib (a long solo
# run grows ~1 GiB a minute and was ended by the out-of-memory killer with
# its results), and on a SIGINT while the terminals run (it used to exit at
# once and write no JSON). A floor above any machine's MemAvailable stands
# in for memory running out.
# Usage: run_end_early_test.sh PATH/TO/tpcc
set -u
tpcc=$1
scratch=$(mktemp -d /dev/shm/solo-end-early.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# has TEXT PATTERN WHAT: TEXT has a line matching PATTERN.
has() { grep -qE -- "$2" <<<"$1" || fail "$3: no line matching '$2'"; }
json_field() {  # FILE FIELD
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
# SIGINT at its default action, as from a terminal (a shell starts
# background jobs with it ignored, and tpcc keeps an ignored signal ignored).
with_sigint=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')

"$tpcc" load --engine solo --dir "$scratch/db" --quiet --no-check || fail "load"
cp -a "$scratch/db" "$scratch/loaded"
fresh() { rm -rf "$scratch/db" && cp -a "$scratch/loaded" "$scratch/db"; }

# 1. Memory below the floor inside the window: the run ends within about a
# second, reports that window (checks included) and exits 1.
started=$SECONDS
out=$("$tpcc" run --engine solo --dir "$scratch/db" --no-load --warmup 0 --duration 120 \
  --memory-floor-mib 1073741824 --json "$scratch/floor.json" --quiet 2>&1)
status=$?
echo "$out"
[[ $status -eq 1 ]] || fail "floor: exit status $status, want 1"
((SECONDS - started < 60)) || fail "floor: the run took $((SECONDS - started)) s of its 120"
has "$out" "^RUN ENDED EARLY: the machine's available memory \(MemAvailable [0-9]+ MiB\) fell below the floor of 1073741824 MiB [0-9.]+ s into the measured window; .*--memory-floor-mib" "floor"
has "$out" "^consistency: 11/11 conditions hold$" "floor"
if [[ -f $scratch/floor.json ]]; then
  [[ $(json_field "$scratch/floor.json" ended_early) == *"fell below the floor"* ]] ||
    fail "floor: JSON ended_early is '$(json_field "$scratch/floor.json" ended_early)'"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert 0.5 <= d["measured_s"] <= 30, d["measured_s"]
assert d["tps"] > 0 and d["committed"] > 0, (d["tps"], d["committed"])
assert d["error"] == "", d["error"]' "$scratch/floor.json" || fail "floor: JSON figures"
else
  fail "floor: no JSON written"
fi

# 2. Below the floor during the warm-up: nothing was measured, an error.
fresh
out=$("$tpcc" run --engine solo --dir "$scratch/db" --no-load --warmup 30 --duration 60 \
  --memory-floor-mib 1073741824 --json "$scratch/warm.json" --quiet 2>&1)
status=$?
echo "$out"
[[ $status -eq 1 ]] || fail "warm-up: exit status $status, want 1"
has "$out" "^RUN STOPPED BY AN ERROR: nothing measured: the machine's available memory .* during the warm-up \([0-9.]+ of 30.0 s\), before the measured window" "warm-up"

# 3. --memory-floor-mib 0: no floor; the same run completes its window.
fresh
"$tpcc" run --engine solo --dir "$scratch/db" --no-load --warmup 0 --duration 2 \
  --memory-floor-mib 0 --json "$scratch/none.json" --quiet >/dev/null 2>&1 ||
  fail "--memory-floor-mib 0: exit status $?"
[[ -f $scratch/none.json && $(json_field "$scratch/none.json" ended_early) == "" ]] ||
  fail "--memory-floor-mib 0: the run ended early"

# 4. SIGINT while the terminals run: the window ends, the results and the
# JSON follow, exit 130.
fresh
err=$scratch/int.err
"${with_sigint[@]}" "$tpcc" run --engine solo --dir "$scratch/db" --no-load --warmup 0 \
  --duration 120 --json "$scratch/int.json" >"$scratch/int.out" 2>"$err" &
pid=$!
for ((waited = 0; waited < 300; waited++)); do
  grep -qE " run +[0-9]+ tps" "$err" && break
  sleep 0.1
done
started=$SECONDS
kill -INT "$pid"
wait "$pid"
status=$?
cat "$scratch/int.out"
[[ $status -eq 130 ]] || fail "SIGINT: exit status $status, want 130"
((SECONDS - started < 60)) || fail "SIGINT: tpcc took $((SECONDS - started)) s to end"
has "$(cat "$err")" "^tpcc: SIGINT: ending the run's window now; its results follow" "SIGINT"
has "$(cat "$scratch/int.out")" "^RUN ENDED EARLY: interrupted \(SIGINT\) [0-9.]+ s into the measured window" "SIGINT"
has "$(cat "$scratch/int.out")" "^consistency: 11/11 conditions hold$" "SIGINT"
[[ -f $scratch/int.json && $(json_field "$scratch/int.json" ended_early) == "interrupted (SIGINT)"* ]] ||
  fail "SIGINT: no JSON, or no ended_early in it"

# 5. A second SIGINT ends the process at once, as before.
fresh
err=$scratch/int2.err
"${with_sigint[@]}" "$tpcc" run --engine solo --dir "$scratch/db" --no-load --warmup 0 \
  --duration 120 >/dev/null 2>"$err" &
pid=$!
for ((waited = 0; waited < 300; waited++)); do
  grep -qE " run +[0-9]+ tps" "$err" && break
  sleep 0.1
done
kill -INT "$pid"
sleep 0.2
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
[[ $status -eq 130 ]] || fail "two SIGINTs: exit status $status, want 130"
has "$(cat "$err")" "^tpcc: SIGINT: stopping what this run started, then exiting" "two SIGINTs"

if ((failures == 0)); then echo "runs end early and keep their results"; fi
exit $((failures > 0))
