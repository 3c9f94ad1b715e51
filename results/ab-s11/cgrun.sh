#!/bin/bash
# usage: cgrun.sh BIN OUT  -> instructions per New-Order / Payment / Delivery (callgrind, W=1, 16 terminals, 40 s)
bin=$1; out=$2
rm -rf /dev/shm/cg && cp -r ${CG_LOADED:-/dev/shm/cg0} /dev/shm/cg
timeout 900 valgrind --tool=callgrind --callgrind-out-file=$out --collect-atstart=no "--toggle-collect=tpcc::run_new_order*" "--toggle-collect=tpcc::run_payment*" "--toggle-collect=tpcc::run_delivery*" $bin run --engine solo --dir /dev/shm/cg --no-load --warehouses 1 --terminals 16 --duration 40 --no-check > $out.txt 2>&1
callgrind_annotate --tree=caller --inclusive=yes $out 2>/dev/null > $out.tree
python3 - $out.tree <<'PY'
import sys,re
txt=open(sys.argv[1]).read()
for name in ['run_new_order','run_payment','run_delivery']:
    m=re.search(r'([\d,]+) \([ \d.]+%\)  < [^\n]*\((\d[\d,]*)x\)[^\n]*\n[ \d,]+\([ \d.]+%\)  \*  \?\?\?:tpcc::'+name, txt)
    if m:
        total=int(m.group(1).replace(',','')); calls=int(m.group(2).replace(',',''))
        print(f'{name}: {total/calls:,.0f} instructions per call ({calls} calls)')
PY
rm -rf /dev/shm/cg
