#!/usr/bin/env python3
"""Prints the table of README.md from the raw JSON files in this folder."""
import glob
import json
import os

print("| run | trigger | nice | tps | checkpoints in window | rounds no ckpt / ckpt | round p50 us no ckpt / ckpt | round p99 us no ckpt / ckpt | p99 ratio | ring segments |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "*.json"))):
    d = json.load(open(path))
    name = os.path.basename(path)[:-5]
    trigger = "64 MiB fixed" if "fixed64" in name else "max(64 MiB, 2 x ckpt)"
    nice = "10" if name.startswith("nice10") else "0"
    ratio = d["round_p99_us_ckpt"] / d["round_p99_us_no_ckpt"] if d["round_p99_us_ckpt"] else float("nan")
    print(f"| {name} | {trigger} | {nice} | {d['tps']:.0f} | {d['checkpoints_in_window']:.0f} | "
          f"{d['rounds_no_ckpt']:.0f} / {d['rounds_ckpt']:.0f} | "
          f"{d['round_p50_us_no_ckpt']:.0f} / {d['round_p50_us_ckpt']:.0f} | "
          f"{d['round_p99_us_no_ckpt']:.0f} / {d['round_p99_us_ckpt']:.0f} | {ratio:.2f} | {d['log_segments']:.0f} |")
