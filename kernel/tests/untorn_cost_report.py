#!/usr/bin/env python3
"""The summary of an untorn-cost.sh run (a benchmark, not a test): per
workload, the per-round ratio untorn / nountorn of the rate, its median and
the median's distribution-free interval (workloads/stats.py), from the run's
untorn-cost.csv and boot.json.  Prints Markdown for the run's README.md.

usage: untorn_cost_report.py RUN-DIR [RUN-DIR...]   (each holds both files)
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "workloads"))
import stats  # noqa: E402

UNITS = {"seq": "MB/s", "small": "writes/s"}
WHAT = {"seq": "128 MiB with dd bs=1M, then fsync",
        "small": "8k writes at random 8k-aligned offsets of a 64 MiB file, fsync every 8"}


def fail(msg):
    print(f"untorn_cost_report: {msg}", file=sys.stderr)
    sys.exit(1)


def one(run):
    try:
        with open(os.path.join(run, "boot.json")) as f:
            boot = json.load(f)
        with open(os.path.join(run, "untorn-cost.csv")) as f:
            rows = list(csv.DictReader(f))
    except (OSError, ValueError) as e:
        fail(f"{run}: {e}")
    if boot.get("verdict") != "PASS":
        fail(f"{run}: the run did not pass ({boot.get('verdict')})")
    rate = {}
    for r in rows:
        try:
            rate[(r["workload"], int(r["round"]), r["mount"])] = float(r["rate"])
        except (KeyError, ValueError) as e:
            fail(f"{run}: bad row {r}: {e}")
    cmd = " ".join(boot.get("command", []))
    out = [f"### {os.path.basename(os.path.normpath(run))}", "",
           f"Guest command `{cmd}`; kernel {boot['kernel_release']} ({boot['kernel_flavor']}, "
           f"patch series {boot['patch_series_hash']}, config {boot['kernel_config_hash']}), "
           f"commit {boot['repo_commit']}, {boot['accel']} (CPU {boot.get('cpu_model', 'not recorded')}), "
           f"{boot['cpus']} CPUs, "
           f"{boot['mem_mb']} MiB, started {boot['started']}.", "",
           "| workload | untorn median | nountorn median | ratio untorn/nountorn: median "
           "[95% interval] (rounds) |", "|---|---|---|---|"]
    for w in ("seq", "small"):
        rounds = sorted({k[1] for k in rate if k[0] == w})
        ratios = [rate[(w, n, "on")] / rate[(w, n, "off")] for n in rounds
                  if (w, n, "on") in rate and (w, n, "off") in rate and rate[(w, n, "off")] > 0]
        on = stats.summary([rate[(w, n, "on")] for n in rounds if (w, n, "on") in rate])
        off = stats.summary([rate[(w, n, "off")] for n in rounds if (w, n, "off") in rate])
        rs = stats.summary(ratios)
        if not (on and off and rs):
            fail(f"{run}: no {w} rows")
        ci = rs["ci95"]
        interval = (f"[{ci[0]:.3f}-{ci[1]:.3f}, coverage {rs['coverage']:.3f}]" if ci
                    else "[too few rounds]")
        out.append(f"| {w}: {WHAT[w]} | {on['median']:.1f} {UNITS[w]} | "
                   f"{off['median']:.1f} {UNITS[w]} | {rs['median']:.3f} {interval} "
                   f"({rs['n']}) |")
    return out


def main():
    if len(sys.argv) < 2:
        fail("usage: untorn_cost_report.py RUN-DIR [RUN-DIR...]")
    for run in sys.argv[1:]:
        print("\n".join(one(run)))
        print()


if __name__ == "__main__":
    main()
