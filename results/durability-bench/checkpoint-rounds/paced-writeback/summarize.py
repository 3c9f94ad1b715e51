#!/usr/bin/env python3
"""Tables of README.md from the raw JSON and text files in this folder.

    summarize.py            the pairs (base / paced)
    summarize.py screen     screen/: the variants tried before the final code
    summarize.py screen2    screen2/: 1 MiB chunks and nice 19 against the final code

Per run: tps, round p99 without / with a checkpoint and their ratio, log
batch (write + fdatasync) p99 without / with, checkpoints in the window and
their mean time (of it in the final fdatasync, and waiting for chunks), the
longest since open, and the load average (1 min) before and after the run.
Then the medians per variant.
"""
import glob
import json
import os
import re
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))


def load_of(txt):
    loads = re.findall(r"load average: ([0-9.]+)", open(txt).read())
    return "/".join(loads)


def row(path):
    d = json.load(open(path))
    f = lambda key: d.get(key, 0.0)
    ratio = f("round_p99_us_ckpt") / f("round_p99_us_no_ckpt") if f("round_p99_us_no_ckpt") else float("nan")
    return {
        "name": os.path.basename(path)[:-5],
        "tps": f("tps"),
        "rp99_no": f("round_p99_us_no_ckpt") / 1e3,
        "rp99_ck": f("round_p99_us_ckpt") / 1e3,
        "ratio": ratio,
        "bp99_no": f("log_batch_p99_us_no_ckpt") / 1e3,
        "bp99_ck": f("log_batch_p99_us_ckpt") / 1e3,
        "ckpts": f("checkpoints_in_window"),
        "ckpt_s": f("checkpoint_s_mean"),
        "sync_s": f("checkpoint_sync_s_mean"),
        "wait_s": f("checkpoint_writeback_wait_s_mean"),
        "max_s": f("checkpoint_s_max"),
        "load": load_of(path[:-5] + ".txt"),
    }


def table(paths):
    print("| run | tps | round p99 ms no ckpt / ckpt | ratio | log batch p99 ms no ckpt / ckpt | "
          "ckpts | ckpt s mean (fdatasync / chunk wait) | ckpt s max | load 1 min before/after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = [row(p) for p in paths]
    for r in rows:
        print(f"| {r['name']} | {r['tps']:.0f} | {r['rp99_no']:.1f} / {r['rp99_ck']:.1f} | {r['ratio']:.2f} | "
              f"{r['bp99_no']:.1f} / {r['bp99_ck']:.1f} | {r['ckpts']:.0f} | "
              f"{r['ckpt_s']:.2f} ({r['sync_s']:.2f} / {r['wait_s']:.2f}) | {r['max_s']:.2f} | {r['load']} |")
    return rows


def medians(rows, variants):
    print()
    print("| variant | runs | tps | round p99 ms no ckpt / ckpt | ratio | log batch p99 ms no ckpt / ckpt | ckpt s mean | ckpt s max |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for variant in variants:
        chosen = [r for r in rows if re.search(variant, r["name"])]
        if not chosen:
            continue
        m = lambda key: statistics.median(r[key] for r in chosen)
        print(f"| {variant} | {len(chosen)} | {m('tps'):.0f} | {m('rp99_no'):.1f} / {m('rp99_ck'):.1f} | "
              f"{m('ratio'):.2f} | {m('bp99_no'):.1f} / {m('bp99_ck'):.1f} | {m('ckpt_s'):.2f} | {m('max_s'):.2f} |")


which = sys.argv[1] if len(sys.argv) > 1 else "pairs"
if which == "pairs":
    rows = table(sorted(glob.glob(os.path.join(here, "*-pair*.json")),
                        key=lambda p: (os.path.basename(p).split("-pair")[0],
                                       int(re.search(r"pair(\d+)", p).group(1)), p)))
    medians(rows, [r"^disk-.*-base$", r"^disk-.*-paced$", r"^ram-.*-base$", r"^ram-.*-paced$",
                   r"^set2-disk-.*-base$", r"^set2-disk-.*-paced$", r"^set2-ram-.*-base$",
                   r"^set2-ram-.*-paced$", r"^set3-disk-.*-base$", r"^set3-disk-.*-paced$"])
elif which == "screen2":
    rows = table(sorted(glob.glob(os.path.join(here, "screen2", "q*.json"))))
    medians(rows, [r"-base$", r"-paced$", r"-wb1m$", r"-nice19$"])
else:
    rows = table(sorted(glob.glob(os.path.join(here, "screen", "s*-*.json")) +
                        glob.glob(os.path.join(here, "screen", "r*-*.json")) +
                        []))
    medians(rows, [r"^s\d-base$", r"-wb8$", r"-wb8w$", r"-wb4w$", r"-wb2w$", r"^s\d-idle$", r"-wb8w-idle$",
                   r"^r\d-base$", r"^r\d-idle$"])
