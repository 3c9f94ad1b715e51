#!/usr/bin/env bash
# Journal replay across engines (tpcc crosscheck), then: once every engine
# agreed, its databases under DIR are gone (a private PostgreSQL cluster in
# /dev/shm holds ~650 MB of RAM), and with --keep they stay.
# Usage: crosscheck_test.sh PATH/TO/tpcc DIR ENGINES TRANSACTIONS [OPTION...]
# (options for the run, e.g. --drivers 0)
set -u
tpcc=$1 dir=$2 engines=$3 transactions=$4
shift 4
rm -rf "$dir"
if ! "$tpcc" crosscheck --engines "$engines" --terminals 4 --transactions "$transactions" \
    --dir "$dir" --quiet "$@"; then
  echo "FAIL: crosscheck found differences (databases kept in $dir)"
  exit 1
fi
if [[ -e $dir ]]; then
  echo "FAIL: $dir is still there after a crosscheck in which all engines agreed:"
  ls -la "$dir"
  exit 1
fi
echo "ok: $dir removed after the engines agreed"
