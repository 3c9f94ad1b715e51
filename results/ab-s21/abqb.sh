# abqb.sh OUT PAIRS "ENV|ARGS"...: alternating solo runs in memory at W=1
# T=64 from /var/tmp/sd0, 4 s after 1 s of warm-up ("-" for no ENV and no
# ARGS beyond the binary). Since session 23 the loop is scripts/ab (the same
# runs; its summary adds cpu us/txn); this keeps the old call.
out=$1; pairs=$2; shift 2
modes=()
for spec in "$@"; do [ "$spec" = "-" ] && spec="|"; modes+=("ram|$spec"); done
exec "$(dirname "$0")/../../scripts/ab" --pairs "$pairs" --seconds 4 --warmup 1 "$out" "${modes[@]}"
