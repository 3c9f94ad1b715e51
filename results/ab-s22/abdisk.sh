# alternation of solo runs, W=1 T=64, from one loaded database (/var/tmp/sd0,
# made by `tpcc load --engine solo --storage disk --dir /var/tmp/sd0`):
#   abdisk.sh OUT PAIRS SECONDS "STORAGE|ENV|TPCC [ARGS]"...
# each mode runs on a fresh copy (ram: /dev/shm/sd, disk: /var/tmp/sdd)
out=$1; pairs=$2; secs=$3; shift 3; mkdir -p $out
modes=("$@")
for i in $(seq 1 $pairs); do for k in "${!modes[@]}"; do
 m=$(printf "\\x$(printf %x $((65+k)))")
 IFS='|' read -r st e a <<< "${modes[$k]}"
 if [ "$st" = ram ]; then dir=/dev/shm/sd; else dir=/var/tmp/sdd; fi
 rm -rf $dir && cp -r /var/tmp/sd0 $dir && sync
 env $e $(echo $a | cut -d" " -f1) run --engine solo --storage $st --dir $dir --no-load --warehouses 1 --terminals 64 --duration $secs --warmup 2 --no-check $(echo $a | cut -s -d" " -f2-) --json $out/$m-$i.json > $out/$m-$i.txt 2>&1
 rm -rf $dir
done; done
python3 - $out <<'PY'
import json,glob,sys,statistics
out=sys.argv[1]
runs={}
for f in glob.glob(out+'/*.json'):
    m,i=f.split('/')[-1][:-5].split('-'); r=json.load(open(f)); runs.setdefault(int(i),{})[m]=r
ms=sorted({m for v in runs.values() for m in v})
for m in ms[1:]:
    rt=[v[m]['tps']/v['A']['tps'] for v in runs.values() if m in v and 'A' in v]
    print(m,'vs A: tps ratio median %.3f (%.3f-%.3f) n=%d'%(statistics.median(rt),min(rt),max(rt),len(rt)))
for m in ms:
    g=lambda k: statistics.median([v[m][k] for v in runs.values() if m in v and k in v[m]] or [0])
    print(m,'tps median %.0f'%g('tps'),'cpu us/txn %.1f'%g('cpu_us_per_txn'),'owner us/write %.2f'%g('owner_us_per_write'), 'NO p99 median %.2f'%statistics.median([v[m]['per_type']['new_order']['p99_ms'] for v in runs.values() if m in v]))
PY
