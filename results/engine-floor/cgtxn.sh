#!/bin/bash
# usage: cgtxn.sh BIN TAG -> instructions per call of each TPC-C transaction (callgrind,
# --separate-threads, W=1, 16 terminals); needs /dev/shm/cg0 = a loaded W=1 solo database
bin=$1; tag=$2; out=/tmp/cg/$tag.out; mkdir -p /tmp/cg
rm -rf /dev/shm/cg && cp -r /dev/shm/cg0 /dev/shm/cg && rm -f $out*
timeout 900 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=$out $bin run --engine solo --dir /dev/shm/cg --no-load --warehouses 1 --terminals 16 --duration ${CG_DUR:-12} --no-check --seed 7 > $out.txt 2>&1
python3 - $out <<'PY'
import re,sys,glob,collections
tot=collections.Counter(); calls=collections.Counter()
for f in glob.glob(sys.argv[1]+'-*'):
    names={}; pending=None; cur=None
    lines=open(f).read().split('\n')
    i=0
    while i < len(lines):
        line=lines[i]
        m=re.match(r'^(fn|cfn)=\((\d+)\)(?: (.*))?',line)
        if m:
            kind,id_,name=m.groups()
            if name: names[id_]=name
            if kind=='cfn': pending=id_
            i+=1; continue
        m=re.match(r'^calls=(\d+)',line)
        if m and pending:
            nm=names.get(pending,'')
            mm=re.match(r'tpcc::(run_(new_order|payment|delivery|order_status|stock_level))\(',nm)
            cost=lines[i+1].split()
            if mm and len(cost)>=2:
                calls[mm.group(1)]+=int(m.group(1)); tot[mm.group(1)]+=int(cost[1])
            i+=2; continue
        i+=1
for k in sorted(calls): print(f'{k:18s} {tot[k]/calls[k]:>10,.0f} instr/call  ({calls[k]} calls)')
PY
