out=$1; mkdir -p $out
for i in 1 2 3 4; do for m in A B; do
 rm -rf /var/tmp/sd && cp -r /var/tmp/sd0 /var/tmp/sd && sync
 if [ $m = B ]; then export WB_BYTES=262144; else unset WB_BYTES; fi
 /work/main/build/release/tpcc/tpcc run --engine solo --storage disk --dir /var/tmp/sd --no-load --warehouses 1 --terminals 64 --duration 10 --warmup 3 --no-check --json $out/$m-$i.json > $out/$m-$i.txt 2>&1
 unset WB_BYTES
done; done
rm -rf /var/tmp/sd
for i in 1 2 3 4; do for m in A B; do python3 -c "
import json; r=json.load(open('$out/$m-$i.json')); p=r['per_type']['new_order']; print('$m$i', '%.0f'%r['tps'], p['p50_ms'], p['p99_ms'], p['answer_p99_ms'], round(r['log_batch_p99_us_ckpt']), round(r['log_batch_p99_us_no_ckpt']), round(r['round_p99_us_ckpt']), round(r['round_p99_us_no_ckpt']), r['checkpoints_in_window'], round(r['checkpoint_s_mean'],2))"; done; done
