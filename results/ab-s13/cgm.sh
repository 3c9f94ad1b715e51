#!/bin/bash
# usage: cgm.sh NAME  -> rebuild /tmp/bprof, run callgrind, print per-txn instructions
set -e
ninja -C /tmp/bprof tpcc/tpcc 2>&1 | grep -E "error|Linking target" || true
cd /tmp && bash /work/main/results/ab-s11/cgrun.sh /tmp/bprof/tpcc/tpcc /tmp/$1 >/dev/null 2>&1 || true
f=$1; callgrind_annotate --tree=caller --inclusive=yes $f 2>/dev/null > $f.caller
for fn in run_new_order run_payment run_delivery; do awk -v fn="$fn" '$0 ~ "<.*_M_invoke" {last=$0} $0 ~ "\\*  .*tpcc::"fn"\\(" && last!="" { print last; print; exit }' $f.caller | python3 -c "
import sys,re
l=sys.stdin.read().split('\n')
calls=int(re.search(r'\((\d[\d,]*)x\)',l[0]).group(1).replace(',',''))
tot=int(l[1].split()[0].replace(',',''))
print('$f','$fn',f'{tot/calls:,.0f}',calls)"; done
