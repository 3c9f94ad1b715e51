#!/usr/bin/env bash
# Every command in scripts/ answers --help with its usage on stdout and exit 0,
# before it installs, builds or runs anything; the ones without arguments (or
# with a fixed set) refuse others with exit 2 and a line naming them; and
# scripts/bench-table refuses an unreadable file with a message (it used to
# throw a traceback, and `--help` was opened as a file).
# The scripts run from a copy of scripts/ alone: a script that ignored --help
# and went to work would find no meson.build and fail (or print its set-up
# or build lines), instead of rebuilding the tree the suite runs from.
#   scripts_test.sh SOURCE_ROOT
set -uo pipefail
root=${1:?usage: scripts_test.sh SOURCE_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/scripts" "$tmp/"
cd "$tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

count=0
for script in scripts/*; do
  [[ -f $script && -x $script ]] || continue
  count=$((count + 1))
  for flag in --help -h; do
    out=$(timeout 60 "$script" "$flag" 2>"$tmp/err")
    rc=$?
    [[ $rc -eq 0 ]] || bad "$script $flag: exit $rc, want 0 ($(head -c 300 "$tmp/err"))"
    [[ $(wc -l <<<"$out") -ge 2 ]] || bad "$script $flag: no usage on stdout: '$out'"
    if grep -qE '^(setup:|built build/|== )' <<<"$out"; then
      bad "$script $flag went to work: $(grep -E '^(setup:|built build/|== )' <<<"$out" | head -1)"
    fi
  done
done
[[ $count -ge 13 ]] || bad "only $count scripts found in $root/scripts"

expect_refused() {  # expected-text, command...
  local want=$1; shift
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  [[ $rc -eq 2 ]] || bad "$*: exit $rc, want 2 ($out)"
  grep -qF -- "$want" <<<"$out" || bad "$*: message '$out' does not name '$want'"
}
expect_refused "'--bogus'" scripts/test --bogus
expect_refused "'x'" scripts/setup x
expect_refused "'-x'" scripts/format -x
expect_refused "FILE.json" scripts/bench-table

out=$(scripts/bench-table "$tmp/missing.json" 2>&1)
rc=$?
[[ $rc -eq 1 ]] || bad "bench-table on a missing file: exit $rc, want 1"
grep -q "cannot read $tmp/missing.json" <<<"$out" || bad "bench-table missing file: '$out'"
grep -q Traceback <<<"$out" && bad "bench-table missing file: a traceback: '$out'"
echo '{"benchmarks": 3}' >"$tmp/notbench.json"
out=$(scripts/bench-table "$tmp/notbench.json" 2>&1)
[[ $? -eq 1 ]] && grep -q "is not a Google benchmark result" <<<"$out" ||
  bad "bench-table on a non-benchmark JSON: '$out'"

((fail == 0)) && echo "ok: $count scripts answer --help and -h; bad arguments refused"
exit $fail
