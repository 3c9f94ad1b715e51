#!/usr/bin/env python3
# usage: abd-sum.py DIR A B -> medians, min-max and per-pair ratios A/B of one A/B run
import json,glob,statistics as st,sys,os
d0=sys.argv[1]; a,b=sys.argv[2],sys.argv[3]
rows={}
for f in glob.glob(d0+'/*.json'):
    v,r=os.path.basename(f)[:-5].split('-'); rows.setdefault(int(r),{})[v]=json.load(open(f))
def g(d,k):
    if k=='tps': return d['tps']
    if k=='cpu': return d['cpu_us_per_txn']
    t,q=k.split(':'); return d['per_type'][t][q]
keys=['tps','cpu','new_order:p50_ms','new_order:p99_ms','payment:p99_ms','delivery:p50_ms','delivery:p99_ms']
pairs=[r for r in sorted(rows) if a in rows[r] and b in rows[r]]
print(f'{len(pairs)} pairs; {a} vs {b}')
for k in keys:
    A=[g(rows[r][a],k) for r in pairs]; B=[g(rows[r][b],k) for r in pairs]
    rat=[x/y for x,y in zip(A,B)]
    print(f'{k:18} {a}: {st.median(A):9.3f} ({min(A):.3f}-{max(A):.3f})  {b}: {st.median(B):9.3f} ({min(B):.3f}-{max(B):.3f})  ratio med {st.median(rat):.3f} ({min(rat):.3f}-{max(rat):.3f})')
