#!/usr/bin/env bash
# The huge pages `scripts/pg start` reserves go back at `stop`: reserved pages
# are taken from the machine (2.3 GB here) whether a server uses them or not.
# Runs alone (is_parallel: false): nr_hugepages is one number for the whole
# machine, and another cluster starting or stopping meanwhile would move it.
# Needs root (only root can reserve). Usage: pg_hugepages_test.sh PATH/TO/scripts/pg
set -u
pg=$1
hugepages=/proc/sys/vm/nr_hugepages
if [[ $(id -u) -ne 0 || ! -w $hugepages ]]; then
  echo "FAIL: needs root and a writable $hugepages (scripts/pg reserves huge pages only as root)"
  exit 1
fi
scratch=$(mktemp -d /dev/shm/solo-pg-huge.XXXXXX)
chmod 0755 "$scratch"
before=$(cat "$hugepages")
cleanup() {
  "$pg" stop --dir "$scratch/cluster" --remove >/dev/null 2>&1
  echo "$before" >"$hugepages"
  rm -rf "$scratch"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

echo 0 >"$hugepages"
"$pg" start --dir "$scratch/cluster" >/dev/null 2>&1 || fail "a cluster in $scratch/cluster did not start"
reserved=$(cat "$hugepages")
((reserved > 0)) || fail "start reserved no huge pages (nr_hugepages $reserved)"
"$pg" stop --dir "$scratch/cluster" >/dev/null 2>&1
after=$(cat "$hugepages")
[[ $after -eq 0 ]] || fail "stop left nr_hugepages at $after (0 before start, $reserved after it)"
# A start that finds enough reserved leaves the number alone at stop.
echo "$reserved" >"$hugepages"
"$pg" start --dir "$scratch/cluster" >/dev/null 2>&1 || fail "the cluster did not start again"
"$pg" stop --dir "$scratch/cluster" >/dev/null 2>&1
[[ $(cat "$hugepages") -eq $reserved ]] ||
  fail "a stop lowered nr_hugepages it had not raised ($reserved -> $(cat "$hugepages"))"
if [[ $failures -eq 0 ]]; then echo "ok: $reserved huge pages reserved at start and given back at stop"; fi
exit $((failures > 0))
