#!/bin/bash
# usage: cgread.sh BIN OUT -> instructions per call of each transaction (callgrind, W=1, 16 terminals)
bin=$1; out=$2
rm -rf /dev/shm/cg && cp -r /dev/shm/cg0 /dev/shm/cg
timeout 900 valgrind --tool=callgrind --callgrind-out-file=$out --collect-atstart=no "--toggle-collect=tpcc::run_new_order*" "--toggle-collect=tpcc::run_payment*" "--toggle-collect=tpcc::run_delivery*" "--toggle-collect=tpcc::run_order_status*" "--toggle-collect=tpcc::run_stock_level*" $bin run --engine solo --dir /dev/shm/cg --no-load --warehouses 1 --terminals 16 --duration ${CG_DUR:-20} --no-check > $out.txt 2>&1
callgrind_annotate --tree=caller --inclusive=yes $out 2>/dev/null > $out.tree
python3 - $out.tree <<'PY'
import sys,re
txt=open(sys.argv[1]).read()
seen=set()  # callgrind_annotate prints a function once per file name it knows it by
for b in txt.split('\n\n'):
    lines=[l for l in b.split('\n') if l.strip()]
    star=[l for l in lines if re.match(r'\s*[\d,]+ \([ \d.]+%\)  \*  ',l)]
    if not star: continue
    m=re.search(r'tpcc::(run_(?:new_order|payment|order_status|delivery|stock_level))\(', star[0])
    if not m or m.group(1) in seen: continue
    tot=int(star[0].split()[0].replace(',',''))
    calls=sum(int(x.replace(',','')) for l in lines for x in re.findall(r'<.*\((\d[\d,]*)x\)',l))
    if calls:
        seen.add(m.group(1))
        print(f'{m.group(1)}: {tot/calls:,.0f} instructions per call ({calls} calls)')
PY
rm -rf /dev/shm/cg
