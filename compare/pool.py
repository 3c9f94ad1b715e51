#!/usr/bin/env python3
"""Pools the per-round ratios of several durable runs (scripts/compare durable) at W=1
(one 5-round run moves its ratios by more than the targets' margins). SQLite's best T is
the one with the best median tps, as in compare/table.cc's summary:
solo T=64 ram / SQLite at the run's best T (ram), solo disk / SQLite FULL best T (disk),
solo disk / solo ram; plus solo's CPU/txn, rss/state and New-Order p99 in ram. Prints each run's
medians and the pooled median (min-max) over all rounds."""
import json, glob, os, statistics, sys

def load(d, engine, storage, t):
    out = {}
    for f in glob.glob(f"{d}/raw/{engine}-{storage}-w1-t{t}-r*.json"):
        r = int(f.rsplit("-r", 1)[1].split(".")[0])
        j = json.load(open(f))
        if j.get("ok"):
            out[r] = j
    return out

def best_sqlite(d, storage):
    best = None
    for t in (1, 4, 16, 64):
        runs = load(d, "sqlite", storage, t)
        if not runs:
            continue
        m = statistics.median(j["tps"] for j in runs.values())
        if best is None or m > best[0]:
            best = (m, t, runs)
    return best

measures = {}
def add(name, run, vals):
    measures.setdefault(name, []).append((run, vals))

for d in sys.argv[1:]:
    run = os.path.basename(d.rstrip("/"))
    sr, sd = load(d, "solo", "ram", 64), load(d, "solo", "disk", 64)
    br, bd = best_sqlite(d, "ram"), best_sqlite(d, "disk")
    add("ram: solo / best SQLite", run, [sr[r]["tps"] / br[2][r]["tps"] for r in sr if r in br[2]])
    add("disk: solo / best SQLite FULL", run, [sd[r]["tps"] / bd[2][r]["tps"] for r in sd if r in bd[2]])
    add("solo disk / solo ram", run, [sd[r]["tps"] / sr[r]["tps"] for r in sd if r in sr])
    add("solo ram tps", run, [j["tps"] for j in sr.values()])
    add("solo disk tps", run, [j["tps"] for j in sd.values()])
    add("solo CPU us/txn (ram)", run, [j["cpu_us_per_txn"] for j in sr.values()])
    add("solo rss/state (ram)", run, [j["rss_over_state"] for j in sr.values()])
    add("solo New-Order p99 ms (ram)", run, [j["per_type"]["new_order"]["p99_ms"] for j in sr.values()])

print("| measure | " + " | ".join(run for run, _ in next(iter(measures.values()))) + " | pooled (rounds) |")
print("|---|" + "---|" * (len(sys.argv) - 1) + "---|")
for name, rows in measures.items():
    cells = [f"{statistics.median(v):,.2f} ({min(v):,.2f}-{max(v):,.2f})" for _, v in rows]
    allv = [x for _, v in rows for x in v]
    cells.append(f"**{statistics.median(allv):,.2f}** ({min(allv):,.2f}-{max(allv):,.2f}, n={len(allv)})")
    print(f"| {name} | " + " | ".join(cells) + " |")
