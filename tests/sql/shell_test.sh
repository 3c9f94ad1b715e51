#!/bin/sh
# Drives the solo shell non-interactively: output, errors with a caret, exit
# status. Usage: shell_test.sh PATH/TO/solo
set -u
SOLO="$1"
fail=0
check() {  # name expected actual
  if [ "$2" != "$3" ]; then
    printf 'FAIL %s\n--- expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"
    fail=1
  fi
}

out=$(echo "CREATE TABLE t(a INT PRIMARY KEY, b DECIMAL(10,2)); INSERT INTO t VALUES (1, 2.50), (2, 3.25); SELECT SUM(b) FROM t;" | "$SOLO")
check "sum on stdin" "5.75" "$out"

err=$("$SOLO" -c "SELEC 1" 2>&1 >/dev/null); rc=$?
check "syntax error exit status" "1" "$rc"
check "syntax error text" 'ERROR 42601: syntax error at or near "SELEC": expected a statement
LINE 1:1: SELEC 1
          ^' "$err"

# Stops at the first error: the statement after it does not run.
out=$("$SOLO" -c "SELECT 1; SELECT 1 / 0; SELECT 2" 2>/tmp/solo_shell_err.$$); rc=$?
check "stop at first error: status" "1" "$rc"
check "stop at first error: output" "1" "$out"
check "division by zero" "ERROR 22012: division by zero" "$(head -1 /tmp/solo_shell_err.$$)"
rm -f /tmp/solo_shell_err.$$

# Dot commands, CSV mode, NULL and a multi-line statement.
out=$(printf '%s\n' "CREATE TABLE item (i_id INT PRIMARY KEY, i_name VARCHAR(8));" \
  "INSERT INTO item VALUES (1, 'x'), (2, NULL);" ".tables" ".mode csv" \
  "SELECT i_id, i_name" "FROM item ORDER BY i_id;" ".schema item" | "$SOLO")
check "dot commands" "item
i_id,i_name
1,x
2,
CREATE TABLE item (
  i_id INTEGER NOT NULL,
  i_name VARCHAR(8),
  PRIMARY KEY (i_id)
);" "$out"

# Table mode shows NULL.
out=$(printf '%s\n' ".mode table" "SELECT 1 AS a, NULL AS b;" | "$SOLO")
check "table mode" "+---+------+
| a | b    |
+---+------+
| 1 | NULL |
+---+------+
(1 row)" "$out"

# .import a CSV file.
csv=/tmp/solo_shell_csv.$$
printf '1,"a, b"\n2,c\n' > "$csv"
out=$(printf '%s\n' "CREATE TABLE imp (k INT PRIMARY KEY, v TEXT);" ".import $csv imp" \
  "SELECT v FROM imp ORDER BY k;" | "$SOLO")
rm -f "$csv"
check "import" "a, b
c" "$out"

# .stats: rows per table, state bytes, RSS, live snapshots (none is held
# between statements) and owner utilization.
out=$(printf '%s\n' "CREATE TABLE s (k INT PRIMARY KEY, v TEXT);" \
  "INSERT INTO s VALUES (1, 'a'), (2, 'b'), (3, 'c');" ".stats" | "$SOLO")
field() {  # label words, then prints the value after them
  echo "$out" | awk -v label="$1" 'index($0, label) == 1 { print substr($0, length(label) + 1) }' |
    tr -d ' '
}
check "stats rows per table" "3rows" "$(field "s ")"
check "stats live snapshots" "0" "$(field "live snapshots")"
state=$(field "state bytes")
rss=$(field "RSS bytes")
util=$(field "owner utilization")
case "$state" in ''|0|*[!0-9]*) check "stats state bytes > 0" "a positive number" "$state" ;; esac
case "$rss" in ''|*[!0-9]*) check "stats RSS" "a number of bytes" "$rss" ;; esac
[ "${rss:-0}" -gt 1000000 ] 2>/dev/null || check "stats RSS > 1 MB" "> 1000000" "$rss"
case "$util" in [0-9]*.[0-9]%) ;; *) check "stats owner utilization" "N.N%" "$util" ;; esac

[ $fail -eq 0 ] && echo "shell test passed"
exit $fail
