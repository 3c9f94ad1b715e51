#!/usr/bin/env python3
"""Summarises a round trace (round-trace.patch: one line per owner round,
"start_ns txn_end_ns end_ns count"): round durations and sizes, the owner's
idle gaps between rounds, and the rounds of two in a row (what a request
waits). usage: rounds.py TRACE[.gz]"""
import gzip
import statistics as st
import sys

path = sys.argv[1]
opener = gzip.open if path.endswith('.gz') else open
rows = [tuple(map(int, line.split())) for line in opener(path, 'rt')]
t0, end = rows[0][0], rows[-1][2]
w = [r for r in rows if r[0] > t0 + 3e9 and r[2] < end - 0.5e9]  # the measured window
dur = [(r[2] - r[0]) / 1e3 for r in w]
count = [r[3] for r in w]
post = [(r[2] - r[1]) / 1e3 for r in w]
gap = [(w[i + 1][0] - w[i][2]) / 1e3 for i in range(len(w) - 1)]
per_txn = [d / n for d, n in zip(dur, count)]


def q(values, p):
    values = sorted(values)
    return values[int(p * (len(values) - 1))]


span_s = (w[-1][2] - w[0][0]) / 1e9
print(f'rounds {len(w)} over {span_s:.2f} s')
for name, values in [('round us', dur), ('requests', count), ('after txns us', post),
                     ('gap us', gap), ('us per request', per_txn)]:
    print(f'{name:15s} p10 {q(values, .1):8.1f} p50 {q(values, .5):8.1f} p90 {q(values, .9):8.1f} '
          f'p99 {q(values, .99):8.1f} max {max(values):8.1f} mean {st.mean(values):8.1f}')
long_gaps = [g for g in gap if g > 100]
print(f'owner idle in gaps > 100 us: {len(long_gaps)} gaps, {sum(long_gaps) / 1e3:.0f} ms '
      f'({sum(long_gaps) / 1e4 / span_s:.1f}% of the window)')
print(f'rounds with >= 60 requests: {sum(1 for n in count if n >= 60)}')
pair = [dur[i] + gap[i] + dur[i + 1] for i in range(len(w) - 1)]
print(f'two rounds in a row (us): p50 {q(pair, .5):.0f} p90 {q(pair, .9):.0f} p99 {q(pair, .99):.0f}')
