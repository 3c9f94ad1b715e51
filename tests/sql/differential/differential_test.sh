#!/usr/bin/env bash
# Runs sql_differential against a private PostgreSQL that this script starts
# (scripts/pg start --dir, a fresh directory under /dev/shm) and always
# stops and removes, whatever the outcome.
#   differential_test.sh SQL_DIFFERENTIAL SCRIPTS_PG [sql_differential options...]
set -uo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 SQL_DIFFERENTIAL SCRIPTS_PG [options...]" >&2; exit 2; }
binary=$1 pg=$2
shift 2
dir=$(mktemp -d /dev/shm/solo-differential-XXXXXX) || exit 2
cleanup() { "$pg" stop --dir "$dir" --remove >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
"$pg" start --dir "$dir" --terminals 4 >/dev/null || { echo "differential_test: PostgreSQL did not start" >&2; exit 2; }
"$binary" --pg "host=$dir port=5432 dbname=tpcc user=postgres" "$@"
