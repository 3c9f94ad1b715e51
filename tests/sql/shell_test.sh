#!/bin/sh
# Drives the solo shell non-interactively: output, errors with a caret, exit
# status. Usage: shell_test.sh PATH/TO/solo
set -u
SOLO="$1"
. "$(dirname "$0")/check.sh"

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

# Regression (s40 item 2): .schema left out the DEFAULT clauses and quoted
# no name, so its output did not recreate the table. Fed into a fresh
# database it now gives the same rows for the same INSERTs, the same errors,
# and prints the same .schema again.
schema_sql="CREATE TABLE \"Order\" (k INT PRIMARY KEY, qty INT NOT NULL DEFAULT 1,
  price DECIMAL(6,2) DEFAULT -1.5, note VARCHAR(10) DEFAULT 'n''a', total BIGINT DEFAULT (2 * 3),
  \"Mixed Col\" TEXT DEFAULT ('a' || 'b'), at TIMESTAMP DEFAULT '2024-02-29 12:00:00',
  c CHAR(3) DEFAULT 'x', d DOUBLE PRECISION DEFAULT (1.5e0 / 2), n INT DEFAULT NULL);
CREATE UNIQUE INDEX \"Order by note\" ON \"Order\" (note, \"Mixed Col\");
CREATE TABLE plain (v INT DEFAULT 7, w INT NOT NULL);"
probe='.mode csv
INSERT INTO "Order" (k) VALUES (1);
INSERT INTO "Order" (k, qty, note) VALUES (2, 5, NULL);
INSERT INTO plain (w) VALUES (1);
SELECT * FROM "Order" ORDER BY k;
SELECT * FROM plain;
INSERT INTO "Order" (k) VALUES (3);'
schema1=$(printf '%s\n.schema\n' "$schema_sql" | "$SOLO" 2>&1)
check ".schema with defaults and quoted names" 'CREATE TABLE "Order" (
  k INTEGER NOT NULL,
  qty INTEGER NOT NULL DEFAULT 1,
  price DECIMAL(6, 2) DEFAULT -1.5,
  note VARCHAR(10) DEFAULT '"'n''a'"',
  total BIGINT DEFAULT (2 * 3),
  "Mixed Col" TEXT DEFAULT ('"'a' || 'b'"'),
  at TIMESTAMP DEFAULT '"'2024-02-29 12:00:00'"',
  c CHAR(3) DEFAULT '"'x'"',
  d DOUBLE DEFAULT (1.5e0 / 2),
  n INTEGER DEFAULT NULL,
  PRIMARY KEY (k)
);
CREATE UNIQUE INDEX "Order by note" ON "Order" (note, "Mixed Col");
CREATE TABLE plain (
  v INTEGER DEFAULT 7,
  w INTEGER NOT NULL
);' "$schema1"
out1=$(printf '%s\n%s\n' "$schema_sql" "$probe" | "$SOLO" 2>&1)
out2=$(printf '%s\n%s\n' "$schema1" "$probe" | "$SOLO" 2>&1)
check ".schema output recreates the tables: same rows and errors" "$out1" "$out2"
check ".schema output recreates the tables: the rows" 'k,qty,price,note,total,Mixed Col,at,c,d,n
1,1,-1.50,n'"'"'a,6,ab,2024-02-29 12:00:00,x  ,0.75,
2,5,-1.50,,6,ab,2024-02-29 12:00:00,x  ,0.75,
v,w
7,1
ERROR 23505' "$(echo "$out2" | cut -c1-80 | sed 's/^\(ERROR 23505\).*/\1/')"
schema2=$(printf '%s\n.schema\n' "$schema1" | "$SOLO" 2>&1)
check ".schema of the recreated tables" "$schema1" "$schema2"
# .schema TABLE reads the name as SQL does (Item is item, "Order" keeps its
# case; it compared the text as typed), and a table that is not there is an
# error (it printed nothing).
out=$(printf '%s\n' 'CREATE TABLE item (a INT PRIMARY KEY); CREATE TABLE "Order" (b INT PRIMARY KEY);' \
  '.schema Item' '.schema "Order"' | "$SOLO" 2>&1)
check ".schema NAME as SQL reads it" 'CREATE TABLE item (
  a INTEGER NOT NULL,
  PRIMARY KEY (a)
);
CREATE TABLE "Order" (
  b INTEGER NOT NULL,
  PRIMARY KEY (b)
);' "$out"
err=$(printf '%s\n' '.schema nosuch' | "$SOLO" 2>&1); rc=$?
check ".schema of a missing table" '1 ERROR 42P01: relation "nosuch" does not exist' "$rc $err"
err=$(printf '%s\n' '.schema a;b' | "$SOLO" 2>&1); rc=$?
check ".schema of a non-name" '1 .schema: a;b is not a table name (one name, in double quotes if it needs them: "My Table")' "$rc $err"

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

# Regression (probe s35 item 9): CSV export wrote '' and NULL both as an
# empty field, so .import turned '' into NULL. '' is "" now, NULL stays empty.
# Regression (s37): .import read the header line .mode csv writes as a row;
# --skip 1 ignores it, so the export imports back into the same INT key.
csv=/tmp/solo_shell_csv.$$
out=$(printf '%s\n' "CREATE TABLE e (k INT PRIMARY KEY, v TEXT);" \
  "INSERT INTO e VALUES (1, ''), (2, NULL), (3, 'a,\"b\"'), (4, 'x');" ".mode csv" \
  ".output $csv" "SELECT k, v FROM e ORDER BY k;" ".output" \
  "CREATE TABLE f (k INT PRIMARY KEY, v TEXT);" ".import --skip 1 $csv f" \
  "SELECT k, v IS NULL AS v_null, length(v) AS len FROM f ORDER BY k;" |
  "$SOLO" 2>&1)
check "csv export of '' and NULL" 'k,v
1,""
2,
3,"a,""b"""
4,x' "$(cat "$csv")"
rm -f "$csv"
check "csv round trip keeps '' and NULL apart" 'k,v_null,len
1,false,0
2,true,
3,false,5
4,false,1' "$out"

# .import --skip: a bad count is refused; an error names the file's line
# (skipped and empty lines counted).
out=$(printf '%s\n' ".import --skip x $csv f" | "$SOLO" 2>&1); rc=$?
check "import --skip x: status" "1" "$rc"
check "import --skip x" "usage: .import [--skip N] FILE TABLE (N: lines to ignore, e.g. a header)" "$out"
printf 'k,v\n1,a\n\n2,b\n1,c\n' > "$csv"
out=$(printf '%s\n' "CREATE TABLE g (k INT PRIMARY KEY, v TEXT);" ".import --skip 1 $csv g" |
  "$SOLO" 2>&1); rc=$?
check "import error: status" "1" "$rc"
check "import error: file line" "$csv:5: ERROR 23505" "$(echo "$out" | head -1 | cut -d: -f1-3)"
rm -f "$csv"

# Regression (probe s39 item 1): .import took malformed CSV (an unterminated
# quoted field, a record with too many or too few fields, a quote inside an
# unquoted field) as if it were fine. Each is refused now, with the file's
# line, and nothing of the file is inserted: the durable database in $imp_db
# still has no rows after each failed import.
imp=/tmp/solo_shell_imp.$$
mkdir -p "$imp"
imp_db="$imp/db"
"$SOLO" "$imp_db" -c "CREATE TABLE t (k INT PRIMARY KEY, v TEXT)"
bad_import() {  # name, CSV text, expected error (after FILE:), [its first N characters only]
  printf "$2" > "$imp/bad.csv"
  err=$(echo ".import $imp/bad.csv t" | "$SOLO" "$imp_db" 2>&1); rc=$?
  check "$1: status" "1" "$rc"
  first=$(echo "$err" | head -1)
  [ -n "${4:-}" ] && first=$(echo "$first" | cut -c1-$(( ${#imp} + 9 + $4 )))
  check "$1: error" "$imp/bad.csv:$3" "$first"
  check "$1: nothing imported" ".import $imp/bad.csv: nothing imported" "$(echo "$err" | tail -1)"
  check "$1: nothing inserted" "0" "$("$SOLO" "$imp_db" -c "SELECT count(*) FROM t")"
}
bad_import "import unterminated quote" '1,a\n2,b\n3,"c\n4,d\n' \
  '3: ERROR 22P04: unterminated quoted field (field 2: its quote is not closed by the end of the file)'
bad_import "import too many fields" '1,a\n2,b,x\n' \
  '2: ERROR 22P04: the record has 3 fields, table t has 2 columns'
bad_import "import too few fields" '1,a\n2\n' \
  '2: ERROR 22P04: the record has 1 field, table t has 2 columns'
bad_import "import quote in an unquoted field" '1,a\n2,b"c\n' \
  '2: ERROR 22P04: a quote inside unquoted field 2 (a field holding a quote is quoted whole, its quotes doubled: "a""b")'
bad_import "import text after a closing quote" '1,"a"b\n' \
  '1: ERROR 22P04: text after the closing quote of field 2'
# A failed INSERT in the middle (a duplicate key) undoes the rows before it.
bad_import "import duplicate key" '1,a\n2,b\n2,c\n' '3: ERROR 23505' 14
# A quoted field may hold a line break (as .mode csv writes it); lines are
# counted in the file, and CRLF line ends are read as line ends.
printf '1,"a\nb"\r\n\r\n2,""\r\n3,\r\n' > "$imp/good.csv"
out=$(printf '%s\n' ".import $imp/good.csv t" ".mode csv" \
  "SELECT k, v IS NULL AS v_null, length(v) AS len, v FROM t ORDER BY k;" |
  "$SOLO" "$imp_db" 2>&1)
check "import a line break in a quoted field" 'k,v_null,len,v
1,false,3,"a
b"
2,false,0,""
3,true,,' "$out"
printf '4,"x\ny"\n1,dup\n' > "$imp/dup.csv"
err=$(echo ".import $imp/dup.csv t" | "$SOLO" "$imp_db" 2>&1 | head -1 | cut -d: -f1-3)
check "import error line after a line break in a field" "$imp/dup.csv:3: ERROR 23505" "$err"
# Inside an explicit transaction .import is refused (its rollback would undo
# the transaction's own statements too).
err=$(printf '%s\n' "BEGIN;" ".import $imp/good.csv t" | "$SOLO" 2>&1); rc=$?
check "import in a transaction: status" "1" "$rc"
check "import in a transaction" ".import runs in a transaction of its own: COMMIT or ROLLBACK first" "$err"
# Regression (s40 item 4): .import pasted TABLE into its SQL unquoted: a
# name that needs quotes could not be imported into, and text such as
# x;DROP/**/TABLE/**/y or y-- went into the statements. TABLE is now one
# SQL name, quoted in the SQL it writes; anything else is refused.
printf '1,a\n' > "$imp/one.csv"
out=$(printf '%s\n' 'CREATE TABLE "My T" (k INT PRIMARY KEY, v TEXT);' \
  'CREATE TABLE "we""ird" (k INT PRIMARY KEY, v TEXT);' 'CREATE TABLE Plain (k INT, v TEXT);' \
  ".import $imp/one.csv \"My T\"" ".import $imp/one.csv \"we\"\"ird\"" ".import $imp/one.csv PLAIN" \
  'SELECT (SELECT count(*) FROM "My T") + (SELECT count(*) FROM "we""ird") + (SELECT count(*) FROM plain);' |
  "$SOLO" 2>&1)
check "import into quoted names" "3" "$out"
for bad in 'y;DROP/**/TABLE/**/y' 'y--' 'y(k)' 'select' '"unterminated' 'a.b'; do
  out=$(printf '%s\n' 'CREATE TABLE y (k INT, v TEXT);' ".import $imp/one.csv $bad" | "$SOLO" 2>&1); rc=$?
  check "import into $bad: status" "1" "$rc"
  check "import into $bad" ".import: $bad is not a table name (one name, in double quotes if it needs them: \"My Table\")" "$out"
done
out=$(printf '%s\n' 'CREATE TABLE y (k INT, v TEXT);' ".import $imp/one.csv nosuch" | "$SOLO" 2>&1); rc=$?
check "import into a missing table: status" "1" "$rc"
check "import into a missing table" 'ERROR 42P01: relation "nosuch" does not exist' "$out"

rm -rf "$imp"

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

# Regression (probe item 1): a script that .reads itself stopped only when the
# stack overflowed; now .read nests at most 25 deep and the error stops it.
tmp=/tmp/solo_shell_read.$$
mkdir -p "$tmp"
echo ".read $tmp/self.sql" > "$tmp/self.sql"
err=$("$SOLO" < "$tmp/self.sql" 2>&1 >/dev/null); rc=$?
check ".read nesting limit: status" "1" "$rc"
check ".read nesting limit: error" "$tmp/self.sql:1: .read $tmp/self.sql: input nesting limit (25) reached (does a file .read itself?)" "$err"
# A .read inside a .read works, and errors give the line in the file read.
printf 'select 1;\n\nselect 2; select\n  nosuchcol;\n' > "$tmp/inner.sql"
echo ".read $tmp/inner.sql" > "$tmp/outer.sql"
out=$(printf '%s\n' "select 0;" ".read $tmp/outer.sql" | "$SOLO" 2>"$tmp/err"); rc=$?
check "nested .read: output" "0
1
2" "$out"
check "nested .read: status" "1" "$rc"
# Regression (probe s35 item 7): the file's name was missing. (s39 item 3:
# the error starts with the file and the line where the statement starts.)
check "nested .read: error line in the file" "$tmp/inner.sql:3: ERROR 42703: column \"nosuchcol\" does not exist
LINE $tmp/inner.sql:4:3:   nosuchcol;
$(echo "LINE $tmp/inner.sql:4:3:   " | tr -c '\n' ' ')^" "$(cat "$tmp/err")"
# After the .read, errors are the outer input's again.
printf 'select 1;\n' > "$tmp/fine.sql"
err=$(printf '%s\n' ".read $tmp/fine.sql" "select nosuchcol;" | "$SOLO" 2>&1 >/dev/null)
check "error after a .read" 'ERROR 42703: column "nosuchcol" does not exist
LINE 2:8: select nosuchcol;
                 ^' "$err"

# Regression (probe s39 item 3): .read of a directory said nothing (and -f
# and .import of one neither); an error without a position (a runtime error)
# in a script did not say where: it starts with the file and the line where
# the failing statement starts, as psql's does.
for cmd in ".read $tmp" ".import $tmp t"; do
  err=$(echo "$cmd" | "$SOLO" 2>&1); rc=$?
  check "$cmd (a directory): status" "1" "$rc"
  check "$cmd (a directory)" "cannot read $tmp: it is a directory" "$err"
done
err=$("$SOLO" -f "$tmp" 2>&1); rc=$?
check "-f a directory: status" "1" "$rc"
check "-f a directory" "cannot read $tmp: it is a directory" "$err"
err=$(echo ".read $tmp/none.sql" | "$SOLO" 2>&1)
check ".read a missing file" "cannot open $tmp/none.sql: No such file or directory" "$err"
# (A duplicate key is an error without a position: no LINE follows.)
printf 'select 1; create table d (k int primary key);\ninsert into d values (1);\n%s\n%s\n%s\n' \
  "-- the statement starts on line 4" "insert into d" "  values (1); select 3;" > "$tmp/dup.sql"
out=$("$SOLO" -f "$tmp/dup.sql" 2>"$tmp/err"); rc=$?
check "-f: stops at the error" "1" "$out"
check "-f: status" "1" "$rc"
dup_error='ERROR 23505: duplicate key value violates unique constraint on "d"'
check "-f: error without a position names the file and line" "$tmp/dup.sql:4: $dup_error" \
  "$(cat "$tmp/err")"
err=$(printf '%s\n' "select 0;" ".read $tmp/dup.sql" | "$SOLO" 2>&1 >/dev/null)
check ".read: error without a position names the file and line" "$tmp/dup.sql:4: $dup_error" "$err"
# Not in a file (standard input, -c): no name, as before.
err=$("$SOLO" -c "create table d (k int primary key); insert into d values (1), (1)" 2>&1)
check "-c: error without a position" "$dup_error" "$err"

# Regression (s40 item 5): a dot command's error in a file had no file:line
# prefix, unlike a statement's: it has now (-f, .read, nested .read, an
# .import's error), and still none on standard input.
printf 'select 1;\n\n.mode bogus\nselect 2;\n' > "$tmp/dot.sql"
out=$("$SOLO" -f "$tmp/dot.sql" 2>"$tmp/err"); rc=$?
check "-f: dot command error: output and status" "1 1" "$out $rc"
check "-f: dot command error names the file and line" "$tmp/dot.sql:3: unknown mode bogus" \
  "$(cat "$tmp/err")"
printf -- '-- the second line reads a missing file\n.read %s\n' "$tmp/none.sql" > "$tmp/inner2.sql"
printf 'select 1;\n.read %s\n' "$tmp/inner2.sql" > "$tmp/outer2.sql"
err=$(echo ".read $tmp/outer2.sql" | "$SOLO" 2>&1 >/dev/null)
check ".read in a .read: error names the innermost file and line" \
  "$tmp/inner2.sql:2: cannot open $tmp/none.sql: No such file or directory" "$err"
printf '1,a\n1,b\n' > "$tmp/dup.csv"
printf 'create table i (k int primary key, v text);\n.import %s i\n' "$tmp/dup.csv" > "$tmp/imp.sql"
err=$("$SOLO" -f "$tmp/imp.sql" 2>&1)
check ".import in a file: its errors name the file and line" "$tmp/imp.sql:2: $tmp/dup.csv:2: ERROR 23505
$tmp/imp.sql:2: .import $tmp/dup.csv: nothing imported" \
  "$(echo "$err" | sed 's/^\(.*ERROR 23505\).*/\1/')"
err=$(printf 'select 1;\n.mode bogus\n' | "$SOLO" 2>&1 >/dev/null)
check "stdin: dot command error without a prefix" "unknown mode bogus" "$err"

# Regression (probe s35 item 8): a parameter in a DEFAULT gave "the
# statement needs 1 parameters, 0 given" without a position.
err=$("$SOLO" -c "CREATE TABLE t (a INT DEFAULT (?))" 2>&1 >/dev/null)
check "parameter in DEFAULT" 'ERROR 42P02: there is no parameter $1
LINE 1:32: CREATE TABLE t (a INT DEFAULT (?))
                                          ^' "$err"

# Regression (s40 item 3): an error in a 10 MB statement on one line printed
# the whole line; it is cut to 120 characters around the column ("..." at
# the cut), the caret still under the column. The near token is cut too.
big=/tmp/solo_shell_big.$$
a113=$(head -c 113 /dev/zero | tr '\0' a)
{ printf "SELECT '"; head -c 10000000 /dev/zero | tr '\0' a; printf "' FROM;\n"; } > "$big"
err=$("$SOLO" < "$big" 2>&1 >/dev/null); rc=$?
check "10 MB statement: status" "1" "$rc"
check "10 MB statement: error" "ERROR 42601: syntax error at end of input: expected a table name
LINE 1:10000015: ...$a113' FROM;
$(printf '%139s^' '')" "$err"
{ printf "SELECT 1 '"; head -c 10000000 /dev/zero | tr '\0' a; printf "';\n"; } > "$big"
err=$("$SOLO" < "$big" 2>&1 >/dev/null)
rm -f "$big"
[ ${#err} -lt 500 ] || check "10 MB token: error bytes" "< 500" "${#err}"

# Regression (probe item 7): LINE n:c counted from the failing statement's
# start (after the previous ';'), not from the start of the input.
err=$(printf 'select 1;\nselect 2;\n.mode list\nselect nosuchcol;\n' | "$SOLO" 2>&1 >/dev/null)
check "error line in the input" 'ERROR 42703: column "nosuchcol" does not exist
LINE 4:8: select nosuchcol;
                 ^' "$err"
err=$("$SOLO" -c "select 1; select nosuchcol" 2>&1 >/dev/null)
check "error column after a ';' on the same line" 'ERROR 42703: column "nosuchcol" does not exist
LINE 1:18: select 1; select nosuchcol
                            ^' "$err"
err=$(printf "select 'a\nb;c', /* x\n; */ 1;\nselect 'é', nosuchcol;\n" | "$SOLO" 2>&1 >/dev/null)
check "error line after a string and a comment over lines" 'ERROR 42703: column "nosuchcol" does not exist
LINE 4:13: select '"'é'"', nosuchcol;
                       ^' "$err"

# Regression (probe item 6): a piece that is only a nested comment was run
# (42601 "expected a statement"); an unterminated /* silently skipped the
# rest of the script with status 0.
out=$("$SOLO" -c "select 1; /* a /* b */ */" 2>&1); rc=$?
check "nested comment alone: output" "1" "$out"
check "nested comment alone: status" "0" "$rc"
out=$(printf '/* unterminated\nselect 1;\n' | "$SOLO" 2>"$tmp/err"); rc=$?
check "unterminated comment: status" "1" "$rc"
check "unterminated comment: output" "" "$out"
check "unterminated comment: error" "ERROR 42601: unterminated /* comment
LINE 1:1: /* unterminated
          ^" "$(cat "$tmp/err")"
# A comment after the last ';' does not turn the next dot command into SQL.
out=$(printf '%s\n' "select 1; -- done" ".mode csv" "select 2 as two;" | "$SOLO" 2>&1)
check "dot command after a comment" "1
two
2" "$out"

# Regression (probe item 5): the script was split again for every line read
# (80,000 lines: about a minute). Splitting is linear now: 10 s is a very
# generous bound (it takes well under a second even in a debug build).
awk 'BEGIN { for (i = 0; i < 80000; ++i) printf "/* c %d */ ;\n-- c\n", i; print "select 2;" }' \
  > "$tmp/long.sql"
start=$(date +%s)
out=$("$SOLO" < "$tmp/long.sql" 2>&1)
elapsed=$(( $(date +%s) - start ))
check "160,000 comment lines: output" "2" "$out"
[ "$elapsed" -le 10 ] || check "160,000 comment lines: seconds" "<= 10" "$elapsed"
# Every statement of a long script runs, in order.
awk 'BEGIN { for (i = 0; i < 20000; ++i) printf "select %d;\n", i }' > "$tmp/many.sql"
out=$(echo ".read $tmp/many.sql" | "$SOLO" | awk '$0 != NR - 1 { bad = 1 } END { print NR, bad + 0 }')
check "20,000 statements: outputs in order" "20000 0" "$out"
# Statements run as their ';' is read, not after the whole input: the
# second statement is written only once the first one's answer is seen.
fifo="$tmp/fifo"
mkfifo "$fifo"
"$SOLO" < "$fifo" > "$tmp/stream" 2>&1 &
solo_pid=$!
exec 3>"$fifo"
echo "select 'first';" >&3
tries=0
until grep -q first "$tmp/stream" || [ $tries -ge 100 ]; do sleep 0.1; tries=$((tries + 1)); done
echo "select 'second';" >&3
exec 3>&-
wait $solo_pid
check "statements run as they are read" "first
second" "$(cat "$tmp/stream")"
[ $tries -lt 100 ] || check "first answer before the end of the input" "within 10 s" "not seen"
# Output that cannot be written fails the statement and the exit status
# (/dev/full: every write is ENOSPC), rather than leaving a short export.
if [ -w /dev/full ]; then
  err=$("$SOLO" -c "SELECT 1" 2>&1 >/dev/full); rc=$?
  check "stdout full: status" "1" "$rc"
  check "stdout full: message" "cannot write to standard output: the output is incomplete" "$err"
  err=$(printf '%s\n' ".output /dev/full" "SELECT 1;" "SELECT 2;" | "$SOLO" 2>&1); rc=$?
  check "output file full: status" "1" "$rc"
  check "output file full: message" "cannot write to /dev/full: the output is incomplete" "$err"
fi
# A file size limit (ulimit -f) is the same: the write fails with EFBIG and
# is reported (SIGXFSZ, which used to end the shell without a word, is
# ignored).
big_sql="$tmp/big.sql"
{
  echo "CREATE TABLE wide (a INT PRIMARY KEY, b VARCHAR(200));"
  for n in $(seq 1 100); do echo "INSERT INTO wide VALUES ($n, '$(printf '%0100d' $n)');"; done
  echo ".output $tmp/limited.out"
  echo "SELECT * FROM wide;"
} >"$big_sql"
err=$( (ulimit -f 4; exec "$SOLO" -f "$big_sql") 2>&1); rc=$?
check "file size limit: status" "1" "$rc"
check "file size limit: message" "$big_sql:103: cannot write to $tmp/limited.out: the output is incomplete" "$err"
# .quit stops every input level (a .read's too) and returns to main, which
# closes the database (it was std::exit with the engine's threads running).
printf 'select 1;\n.quit\nselect 2;\n' > "$tmp/quit.sql"
out=$(printf '%s\n' ".read $tmp/quit.sql" "select 3;" | "$SOLO" 2>&1); rc=$?
check ".quit in a .read: output" "1" "$out"
check ".quit in a .read: status" "0" "$rc"
printf 'create table q (k int primary key);\ninsert into q values (1);\n.quit\n' | "$SOLO" "$tmp/qdb" >/dev/null 2>&1
out=$("$SOLO" "$tmp/qdb" -c "select count(*) from q" 2>&1)
check ".quit on a durable database, then reopened" "1" "$out"
rm -rf "$tmp"

# At the prompt (a pseudo-terminal, script(1)) a long .import shows a
# progress line on stderr ("importing FILE: N rows (P%)", overwritten with
# \r and blanked at the end); SOLO_SHELL_TEST_PROGRESS_MS=0 shows it every
# 4,096 rows instead of once a second. Piped, nothing is shown.
tmp=$(mktemp -d)
seq 1 20000 | sed 's/$/,x/' >"$tmp/rows.csv"
out=$(printf '%s\n' 'CREATE TABLE p (a INT PRIMARY KEY, b VARCHAR(4));' ".import $tmp/rows.csv p" \
  'SELECT count(*) FROM p;' '.quit' |
  SOLO_SHELL_TEST_PROGRESS_MS=0 script -qec "'$SOLO'" /dev/null 2>&1 | tr '\r' '\n')
check ".import progress at the prompt" "importing $tmp/rows.csv: 4096 rows (" \
  "$(printf '%s\n' "$out" | grep -a -m1 '^importing' | cut -d'(' -f1)("
check ".import progress: the count after it" "imported 20000 rows" \
  "$(printf '%s\n' "$out" | grep -a -m1 '^imported')"
out=$(printf '%s\n' 'CREATE TABLE p (a INT PRIMARY KEY, b VARCHAR(4));' ".import $tmp/rows.csv p" |
  SOLO_SHELL_TEST_PROGRESS_MS=0 "$SOLO" 2>&1)
check ".import without a prompt: no progress" "" "$out"
rm -rf "$tmp"

[ $fail -eq 0 ] && echo "shell test passed"
exit $fail
