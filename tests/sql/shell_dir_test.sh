#!/bin/sh
# The solo shell opens a new or empty directory (a new database, announced at
# the prompt) or a database's directory, and refuses any other directory
# without writing into it: a misspelled path used to get 160 MB of log beside
# someone's files. Usage: shell_dir_test.sh PATH/TO/solo
set -u
SOLO="$1"
. "$(dirname "$0")/check.sh"
scratch=$(mktemp -d /dev/shm/solo-shell-dir.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# A directory of other files is refused, and left as it was.
mkdir "$scratch/docs"
echo notes >"$scratch/docs/notes.txt"
echo todo >"$scratch/docs/todo.txt"
err=$("$SOLO" "$scratch/docs" -c "CREATE TABLE t(a INT PRIMARY KEY)" 2>&1); rc=$?
check "foreign directory: status" "1" "$rc"
check "foreign directory: message" "cannot open the database: $scratch/docs holds no solo database but other files (notes.txt and 1 more); give a new or empty directory, or the directory of an existing database" "$err"
check "foreign directory: untouched" "notes.txt
todo.txt" "$(ls "$scratch/docs")"

# A file is not a directory.
err=$("$SOLO" "$scratch/docs/notes.txt" -c "SELECT 1" 2>&1); rc=$?
check "file as directory: status" "1" "$rc"
check "file as directory: message" "cannot open the database: $scratch/docs/notes.txt is not a directory" "$err"

# A new directory and an empty one make a database; scripts get no note.
err=$("$SOLO" "$scratch/new" -c "CREATE TABLE t(a INT PRIMARY KEY); INSERT INTO t VALUES (7)" 2>&1); rc=$?
check "new directory: status" "0" "$rc"
check "new directory: no note without a prompt" "" "$err"
# It is small: 2 MiB log segments (it was 160 MB of 32 MiB ones).
kib=$(du -sk "$scratch/new" | cut -f1)
if [ "$kib" -gt 20480 ]; then check "new database: at most 20 MiB" "<= 20480 KiB" "$kib KiB"; fi
mkdir "$scratch/empty"
out=$("$SOLO" "$scratch/empty" -c "SELECT 1" 2>&1); rc=$?
check "empty directory" "0 1" "$rc $out"

# An existing database opens, with a file of the user's beside it.
echo mine >"$scratch/new/README"
out=$("$SOLO" "$scratch/new" -c "SELECT a FROM t" 2>&1); rc=$?
check "existing database" "0 7" "$rc $out"

# Regression (session 44): a database without a checkpoint whose log
# segments were removed opened as a new, empty one. Its marker (solo.db)
# says there was one: the open is refused, and nothing is written.
mkdir "$scratch/gone"
"$SOLO" "$scratch/gone" -c "CREATE TABLE t(a INT PRIMARY KEY); INSERT INTO t VALUES (7)" >/dev/null 2>&1
rm -f "$scratch/gone"/wal-*.log
before=$(ls "$scratch/gone")
err=$("$SOLO" "$scratch/gone" -c "SELECT a FROM t" 2>&1); rc=$?
check "log removed: status" "1" "$rc"
case "$err" in
  *"log segments missing: database marker $scratch/gone/solo.db says"*) ;;
  *) check "log removed: message" "log segments missing: database marker $scratch/gone/solo.db ..." "$err" ;;
esac
check "log removed: nothing written" "$before" "$(ls "$scratch/gone")"

# At the prompt (a pseudo-terminal, script(1)), a new database is announced;
# an existing one is not.
if command -v script >/dev/null 2>&1; then
  out=$(printf '.quit\n' | script -qec "'$SOLO' '$scratch/typo'" /dev/null 2>&1)
  case "$out" in
    *"solo: a new database in $scratch/typo"*) ;;
    *) check "prompt: new database note" "solo: a new database in $scratch/typo" "$out" ;;
  esac
  out=$(printf '.quit\n' | script -qec "'$SOLO' '$scratch/new'" /dev/null 2>&1)
  case "$out" in
    *"a new database"*) check "prompt: no note for an existing database" "" "$out" ;;
  esac
else
  echo "FAIL script(1) (bsdutils) is missing"
  fail=1
fi
exit $fail
