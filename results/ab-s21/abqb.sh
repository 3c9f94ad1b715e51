# quick alternation: OUT PAIRS "ENV|ARGS"... ; ram, 4 s runs
out=$1; pairs=$2; shift 2; mkdir -p $out
modes=("$@"); dir=/dev/shm/sd
for i in $(seq 1 $pairs); do for k in "${!modes[@]}"; do
 m=$(printf "\\x$(printf %x $((65+k)))")
 rm -rf $dir && cp -r /var/tmp/sd0 $dir
 spec="${modes[$k]}"; [ "$spec" = "-" ] && spec="|"
 e="${spec%%|*}"; a="${spec#*|}"
 env $e $(echo $a | cut -d" " -f1) run --engine solo --storage ram --dir $dir --no-load --warehouses 1 --terminals 64 --duration 4 --warmup 1 --no-check $(echo $a | cut -s -d" " -f2-) --json $out/$m-$i.json > $out/$m-$i.txt 2>&1
done; done
rm -rf $dir
python3 - $out <<'PY'
import json,glob,sys,statistics
out=sys.argv[1]
runs={}
for f in glob.glob(out+'/*.json'):
    m,i=f.split('/')[-1][:-5].split('-'); r=json.load(open(f)); runs.setdefault(int(i),{})[m]=r
ms=sorted({m for v in runs.values() for m in v})
for m in ms[1:]:
    rt=[v[m]['tps']/v['A']['tps'] for v in runs.values() if m in v and 'A' in v]
    ro=[v[m]['owner_us_per_write']/v['A']['owner_us_per_write'] for v in runs.values() if m in v and 'A' in v]
    print(m,'vs A: tps ratio median %.3f (%.3f-%.3f); owner us/write ratio median %.3f (%.3f-%.3f); n=%d'%(statistics.median(rt),min(rt),max(rt),statistics.median(ro),min(ro),max(ro),len(rt)))
for m in ms:
    print(m,'tps median %.0f'%statistics.median([v[m]['tps'] for v in runs.values() if m in v]),'owner us/write median %.2f'%statistics.median([v[m]['owner_us_per_write'] for v in runs.values() if m in v]), 'NO p99 median %.2f'%statistics.median([v[m]['per_type']['new_order']['p99_ms'] for v in runs.values() if m in v]))
PY
