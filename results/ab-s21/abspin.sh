# A: plain; B: with a SCHED_IDLE spinner process running
out=$1; pairs=$2; mkdir -p $out; dir=/dev/shm/sd
for i in $(seq 1 $pairs); do for m in A B; do
 rm -rf $dir && cp -r /var/tmp/sd0 $dir && sync
 if [ $m = B ]; then /tmp/spin & sp=$!; fi
 /work/main/build/release/tpcc/tpcc run --engine solo --storage ram --dir $dir --no-load --warehouses 1 --terminals 64 --duration 10 --warmup 3 --no-check --json $out/$m-$i.json > $out/$m-$i.txt 2>&1
 if [ $m = B ]; then kill $sp; wait $sp 2>/dev/null; fi
 python3 -c "
import json; r=json.load(open('$out/$m-$i.json')); p=r['per_type']['new_order']; print('$m$i', '%.0f'%r['tps'], 'NO p50/p99/ans99', p['p50_ms'], p['p99_ms'], p['answer_p99_ms'], 'util %.2f'%r['owner_utilization'], 'cpu %.1f'%r['cpu_us_per_txn'], 'ckpts', r.get('checkpoints_in_window'), 'rss/state %.2f'%r['rss_over_state'])"
done; done
rm -rf $dir
