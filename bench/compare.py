#!/usr/bin/env python3
"""Compares bench_bandwidth JSON files of several builds (an experimental option against the
default, say), row by row: GB/s of each and each build's ratio to the first. report.py's merged
files (bench/results/<date>-bandwidth.json) do as well: they hold their run's file under "ctile".

    python3 bench/compare.py BASE.json OTHER.json [MORE.json...] > table.md

Columns are named after the files (a common "bench_bandwidth" / date prefix dropped). Rows are
(kernel, dtype, shape) in the order the files first list them; a failed row shows nan.
Run the builds one after another in one device session: ratios across sessions mean little.
"""
import json
import os
import sys


def build_name(path):
    name = os.path.basename(path).removesuffix(".json")
    for prefix in ("bench_bandwidth", "bandwidth"):
        if prefix in name:
            rest = name.split(prefix, 1)[1].strip("_-")
            return rest or "default"
    return name


def ctile_run(path):
    """The bench_bandwidth document in `path`: the file itself, or the one a merged report holds."""
    data = json.load(open(path))
    if "results" not in data and isinstance(data.get("ctile"), dict):
        data = data["ctile"]
    if "results" not in data or "copy_ceiling" not in data:
        sys.exit(f"compare.py: {path} is neither a bench_bandwidth file nor report.py's merged one")
    return data


def main(paths):
    if len(paths) < 2:
        sys.exit(__doc__)
    runs = [(build_name(p), ctile_run(p)) for p in paths]
    names = [n for n, _ in runs]
    keys, gbps = [], {}
    for name, data in runs:
        for r in data["results"]:
            key = (r["kernel"], r["dtype"], "x".join(map(str, r["shape"])))
            if key not in keys:
                keys.append(key)
            gbps[name, key] = r["gbps"] if r["ok"] else float("nan")
    base = names[0]
    print("| kernel | dtype | shape | " + " | ".join(names) + " | " +
          " | ".join(f"{n} / {base}" for n in names[1:]) + " |")
    print("| --- " * 3 + "| ---: " * (2 * len(names) - 1) + "|")
    for key in keys:
        cells = [f"{gbps[n, key]:.0f}" if (n, key) in gbps else "-" for n in names]
        b = gbps.get((base, key))
        ratios = [f"{gbps[n, key] / b:.2f}" if (n, key) in gbps and b else "-" for n in names[1:]]
        print("| " + " | ".join(key) + " | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    ceilings = ", ".join(f"{n} {max(c['gbps'] for c in d['copy_ceiling']):.0f}" for n, d in runs)
    print(f"\nCopy ceilings (GB/s): {ceilings}")


if __name__ == "__main__":
    main(sys.argv[1:])
