# usage: abm.sh OUT PAIRS "ENV|ARGS" ...   ("-" for none); STORAGE (disk) and DIR (/var/tmp/sd) from the environment
out=$1; pairs=$2; shift 2; mkdir -p $out
modes=("$@"); dir=${DIR:-/var/tmp/sd}
for i in $(seq 1 $pairs); do for k in "${!modes[@]}"; do
 m=$(printf "\\x$(printf %x $((65+k)))")
 rm -rf $dir && cp -r /var/tmp/sd0 $dir && sync
 spec="${modes[$k]}"; [ "$spec" = "-" ] && spec="|"
 e="${spec%%|*}"; a="${spec#*|}"
 env $e /work/main/build/release/tpcc/tpcc run --engine solo --storage ${STORAGE:-disk} --dir $dir --no-load --warehouses 1 --terminals 64 --duration 10 --warmup 3 --no-check $a --json $out/$m-$i.json > $out/$m-$i.txt 2>&1
 python3 -c "
import json; r=json.load(open('$out/$m-$i.json')); p=r['per_type']['new_order']; print('$m$i', '%.0f'%r['tps'], 'NO p50/p99/ans99', p['p50_ms'], p['p99_ms'], p['answer_p99_ms'], 'util %.2f'%r['owner_utilization'], 'cpu %.1f'%r['cpu_us_per_txn'], 'sync99 ck/no', round(r.get('log_batch_p99_us_ckpt',0)), round(r.get('log_batch_p99_us_no_ckpt',0)), 'round99', round(r.get('round_p99_us_ckpt',0)), round(r.get('round_p99_us_no_ckpt',0)), 'ckpts', r.get('checkpoints_in_window'), 'rss/state %.2f'%r['rss_over_state'])"
done; done
rm -rf $dir
