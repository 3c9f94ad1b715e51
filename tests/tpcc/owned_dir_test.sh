#!/usr/bin/env bash
# The harness deletes only what it made (tpcc/owned_dir.h): `tpcc load`,
# `run`, `replay` and `crosscheck`, scripts/crashloop, scripts/recovery-bench
# and `scripts/pg stop --remove` refuse a non-empty --dir without the
# tpcc-owned marker, with one clear line and a non-zero exit, and leave it
# exactly as it was (a probe found `tpcc load --dir D` wiping the solo
# database a user kept in D). A directory tpcc makes, or finds empty, gets
# the marker and is reloaded freely; an unmarked default location is adopted.
# Usage: owned_dir_test.sh PATH/TO/tpcc SOURCE_ROOT
set -u
tpcc=$(realpath "$1") root=$(realpath "$2")
failures=0
scratch=$(mktemp -d /dev/shm/solo-owned-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# A listing of DIR with sizes, times and contents' checksums: equal before
# and after means nothing in DIR changed.
snapshot() { (cd "$1" && find . -printf '%p %s %T@\n' | sort && find . -type f -exec md5sum {} + | sort); }

# expect_refused LABEL DIR COMMAND...: exit 1 or 2, one stderr line saying it
# refuses to delete in DIR, and DIR unchanged.
expect_refused() {
  local label=$1 dir=$2
  shift 2
  local before err status lines
  before=$(snapshot "$dir")
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [[ $status -ne 1 && $status -ne 2 ]] || [[ $lines -ne 1 ]] ||
    ! grep -q "refusing to delete.*$dir" <<<"$err" || ! grep -q "tpcc-owned" <<<"$err"; then
    fail "$label: status $status (want 1 or 2), stderr ($lines lines, want 1 refusing to delete in $dir):"
    printf '  %s\n' "$err"
  elif [[ $(snapshot "$dir") != "$before" ]]; then
    fail "$label: refused, but $dir changed"
    diff <(echo "$before") <(snapshot "$dir") | head -20
  else
    ok "$label -> $status: $err"
  fi
}

# 1. A solo database tpcc did not make (made here by tpcc, then its marker
#    removed, as a user's own database has none), with a file of the user's.
user=$scratch/user-solo
"$tpcc" load --engine solo --dir "$user" --no-check --quiet || fail "load into a new directory"
[[ -f $user/tpcc-owned ]] || fail "a directory tpcc made has no tpcc-owned marker"
rm -f "$user/tpcc-owned"
echo "my notes" >"$user/notes.txt"
expect_refused "solo load" "$user" "$tpcc" load --engine solo --dir "$user" --quiet
expect_refused "solo run" "$user" "$tpcc" run --engine solo --dir "$user" --duration 1 --quiet
journal=$scratch/journal.txt
printf '# solo-tpcc-journal 1 warehouses=1 seed=1 engine=solo\n# end records=0\n' >"$journal"
expect_refused "solo replay" "$user" "$tpcc" replay --engine solo --dir "$user" --journal "$journal" --quiet
# The refused database is whole: check opens it (and creates nothing).
"$tpcc" check --engine solo --dir "$user" --quiet >/dev/null || fail "check of the refused solo database"
[[ ! -e $user/tpcc-owned ]] || fail "check marked a directory it did not make"

# 2. SQLite: a database file of the user's in the directory.
user_sqlite=$scratch/user-sqlite
mkdir "$user_sqlite"
echo "not tpcc's" >"$user_sqlite/tpcc.sqlite"
expect_refused "sqlite load" "$user_sqlite" "$tpcc" load --engine sqlite --dir "$user_sqlite" --quiet

# 3. PostgreSQL's private cluster: refused before any server is started.
user_pg=$scratch/user-pg
mkdir "$user_pg"
echo "mine" >"$user_pg/notes.txt"
expect_refused "postgres load" "$user_pg" "$tpcc" load --engine postgres --dir "$user_pg" --quiet
[[ ! -e $user_pg/data ]] || fail "postgres: a cluster was made in a refused directory"

# 4. crosscheck: --dir itself (it writes and removes DIR/journal.txt and
#    removes DIR), and an engine's directory in a --dir that is tpcc's.
mkdir "$scratch/mine"
echo "my journal" >"$scratch/mine/journal.txt"
expect_refused "crosscheck --dir" "$scratch/mine" \
  "$tpcc" crosscheck --engines solo,sqlite --dir "$scratch/mine" --transactions 10 --quiet
mkdir -p "$scratch/cross/solo"
touch "$scratch/cross/tpcc-owned"
echo "mine" >"$scratch/cross/solo/notes.txt"
expect_refused "crosscheck engine" "$scratch/cross/solo" \
  "$tpcc" crosscheck --engines solo,sqlite --dir "$scratch/cross" --transactions 10 --quiet

# 5. The scripts refuse before they build or run anything.
expect_refused "scripts/crashloop" "$user" \
  "$root/scripts/crashloop" 1 --tpcc "$tpcc" --dir "$user"
expect_refused "scripts/recovery-bench" "$user" \
  "$root/scripts/recovery-bench" --dir "$user" --out "$scratch/bench-out"
[[ ! -e $scratch/bench-out ]] || fail "scripts/recovery-bench wrote its output before refusing"
pg_out=$("$root/scripts/pg" stop --dir "$user_pg" --remove 2>&1)
status=$?
if [[ $status -ne 1 ]] || ! grep -q "refusing to remove" <<<"$pg_out" || [[ ! -f $user_pg/notes.txt ]]; then
  fail "scripts/pg stop --remove of a directory with the user's files: status $status: $pg_out"
else
  ok "scripts/pg stop --remove -> $status: $pg_out"
fi

# 6. An empty directory is taken and marked; a marked one is loaded again.
mkdir "$scratch/empty"
"$tpcc" load --engine sqlite --dir "$scratch/empty" --no-check --quiet || fail "load into an empty directory"
[[ -f $scratch/empty/tpcc-owned ]] || fail "an empty directory was loaded without being marked"
"$tpcc" load --engine solo --dir "$scratch/empty" --no-check --quiet ||
  fail "a second load (another engine) into a marked directory"
ok "an empty directory is marked, and reloaded"

# 7. A default location from a version without the marker is adopted: the
#    disk default ./tpcc-data, from a working directory of our own.
mkdir -p "$scratch/cwd/tpcc-data"
echo "stale" >"$scratch/cwd/tpcc-data/tpcc.sqlite"
(cd "$scratch/cwd" && "$tpcc" load --engine sqlite --storage disk --no-check --quiet) ||
  fail "load into the unmarked default directory"
[[ -f $scratch/cwd/tpcc-data/tpcc-owned ]] || fail "the default directory was not adopted (marked)"

if ((failures == 0)); then echo "all refusals held"; fi
exit $((failures > 0))
