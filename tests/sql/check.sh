# Sourced by the shell tests of tests/sql: check NAME EXPECTED ACTUAL
# prints both and sets fail=1 when they differ (the caller exits with $fail).
fail=0
check() {  # name expected actual
  if [ "$2" != "$3" ]; then
    printf 'FAIL %s\n--- expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"
    fail=1
  fi
}
