out=$1; mkdir -p $out
for i in 1 2 3 4; do for m in A B; do
 rm -rf /dev/shm/q && cp -r /dev/shm/q0 /dev/shm/q
 if [ $m = B ]; then export SPIN_NS=2000000; else unset SPIN_NS; fi
 /work/main/build/release/tpcc/tpcc run --engine solo --dir /dev/shm/q --no-load --warehouses 1 --terminals 64 --duration 10 --warmup 3 --no-check --json $out/$m-$i.json > $out/$m-$i.txt 2>&1
 unset SPIN_NS
done; done
for i in 1 2 3 4; do for m in A B; do python3 -c "
import json; r=json.load(open('$out/$m-$i.json')); p=r['per_type']['new_order']; print('$m$i', '%.0f'%r['tps'], p['p50_ms'], p['p99_ms'], p['answer_p99_ms'], '%.1f'%r['cpu_us_per_txn'], r['checkpoints_in_window'])"; grep LATE $out/$m-$i.txt | tr '\n' ' '; echo; done; done
