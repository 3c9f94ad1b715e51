# abdisk.sh OUT PAIRS SECONDS "STORAGE|ENV|TPCC [ARGS]"...: alternating solo
# runs at W=1 T=64 from /var/tmp/sd0, 2 s of warm-up. Since session 23 the
# loop is scripts/ab (the same runs and summary); this keeps the old call.
out=$1; pairs=$2; secs=$3; shift 3
exec "$(dirname "$0")/../../scripts/ab" --pairs "$pairs" --seconds "$secs" --warmup 2 "$out" "$@"
