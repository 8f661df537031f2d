#!/usr/bin/env python3
"""Turn one workloads/run output directory into JSON, PNG plots and REPORT.md.

Usage: report.py RESULTS_DIR REPORT_MD

RESULTS_DIR holds meta.json (the workloads/run invocation), boots.jsonl
(run-vm's provenance of every guest boot, one JSON object a line),
bench/bench.csv, bench/pg-settings.conf and crash-CONFIG/crash.csv.  Every
number in the report is computed here from those files; nothing is typed in.
"""
import csv
import json
import os
import subprocess
import sys

import report_bench
import report_dba
import report_race
from report_bench import num
from stats import binom_interval, binom_upper  # noqa: F401  (tests use report.binom_upper)

import configs
from configs import CONTROL_MIN_RATE, no_torn_data, read_configs

CONFIG_TABLE = configs.CONFIGS


def page_k(c):
    """Configuration c's PostgreSQL page, as "8k" (configs.tsv's pg_bs)."""
    return f"{int(CONFIG_TABLE[c]['pg_bs']) // 1024}k"
CONFIGS = list(CONFIG_TABLE)
CRASH_CONFIGS = configs.crash_configs()
EXPECT = {c: configs.expectation_text(c) for c in CRASH_CONFIGS}


def is_protected(c):
    """A configuration that claims safety: its cycles must all be clean."""
    return configs.expect(c) == "clean"


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def device_model(row):
    """How tornblk took a cycle's write data: rows of different models are never pooled."""
    dma = int(num(row.get("dma_delay_us")) or 0)
    return f"DMA capture {dma} us/page" if dma else "copy at submission"


CUT_WHERE = ("checkpoint writes", "before the checkpoint's fsync", "eviction writes",
             "right after a copy from two versions")


def cut_where(mode):
    """Where crash.sh placed a cycle's cut, from its cut_mode: fsync or timeout
    (how the wait for the checkpoint's fsync ended), with -end when the cut
    came after its last write, or evict; each maybe with -nowal; or race
    (right after the device copied a page from two versions; race-none: no
    such copy came, an untested cycle cut among eviction writes)."""
    base = mode[:-len("-nowal")] if mode.endswith("-nowal") else mode
    end = base.endswith("-end")
    base = base[:-len("-end")] if end else base
    if base in ("evict", "race-none") and not end:
        return CUT_WHERE[2]
    if base == "race":
        return CUT_WHERE[3]
    if base in ("fsync", "timeout"):
        return CUT_WHERE[1] if end else CUT_WHERE[0]
    raise ValueError(f"unknown cut_mode '{mode}' in crash.csv")


def summarize_crash(rows):
    """Per (configuration, device model): the counts, bounds and whether the
    role's rule holds (configs.tally counts what the rule looks at,
    configs.judge applies it)."""
    groups = {}
    for r in rows:
        groups.setdefault((r["config"], device_model(r)), []).append(r)
    out = {}
    for (c, m), rs in groups.items():
        t = configs.tally(rs)
        s = out[(c, m)] = {k: t[k] for k in ("cycles", "tested", "corrupt", "untested", "lost",
                                             "lost_tested")}
        s.update({"torn_writes": 0, "recovery_failed": 0, "mount_failed": 0,
                  "pages_in_flight": 0, "pages_torn": 0, "wal_cached_writes": 0,
                  "bad_checksums": 0, "commits_seen": 0, "torn_cycles": 0, "seconds": 0,
                  "wal_cycles": 0, "wal_torn_cycles": 0, "wal_pages_torn": 0,
                  "wal_cut_pages": 0, "dma_cycles": 0, "dma_changed_cycles": 0,
                  "dma_pages_changed": 0, "dma_mixed_cycles": 0, "dma_pieces_mixed": 0})
        s.update({k: t[k] for k in ("data_torn_unknown", "meta_torn", "data_torn")})
        s.update({"clean_cycles": [], "where": {w: [0, 0, 0] for w in CUT_WHERE}})
        for r in rs:
            v = r["verdict"]
            if v == "clean" and configs.expect(c) in ("corrupt", "none"):
                # What a control's clean cycle had at its cut: the reason it
                # found nothing (few or no torn pieces, or only XFS's).
                s["clean_cycles"].append({k: r.get(k) or "" for k in (
                    "cycle", "seed", "commit", "cut_mode", "cut_pos", "unflushed_writes",
                    "pages_in_flight", "pages_torn", "meta_pages_torn")})
            w = s["where"][cut_where(r.get("cut_mode") or "")]
            w[0] += not v.startswith("untested")
            w[1] += v.startswith("corrupt")
            w[2] += int(num(r.get("pages_in_flight")) or 0)
            s["recovery_failed"] += r["recovery"] == "failed"
            s["mount_failed"] += r["mount"] == "failed"
            s["torn_cycles"] += (num(r.get("pages_torn")) or 0) > 0
            if num(r.get("wal_pages_torn")) is not None:  # a WAL device of its own
                s["wal_cycles"] += 1
                s["wal_torn_cycles"] += num(r["wal_pages_torn"]) > 0
                s["wal_pages_torn"] += int(num(r["wal_pages_torn"]))
                s["wal_cut_pages"] += r.get("wal_cut") == "pages"
            if num(r.get("dma_pages_changed")) is not None:  # recorded since tornblk counts it
                s["dma_cycles"] += 1
                s["dma_changed_cycles"] += num(r["dma_pages_changed"]) > 0
                s["dma_pages_changed"] += int(num(r["dma_pages_changed"]))
            if num(r.get("dma_pieces_mixed")) is not None:  # recorded since tornblk counts it
                s["dma_mixed_cycles"] += 1
                s["dma_pieces_mixed"] += int(num(r["dma_pieces_mixed"]))
            for k in ("torn_writes", "pages_in_flight", "pages_torn", "wal_cached_writes",
                      "commits_seen", "seconds"):
                s[k] += int(num(r.get(k)) or 0)
            s["bad_checksums"] += int(num(r["checksum_bad"]) or 0)
        s["rate_upper95"] = binom_upper(s["corrupt"], s["tested"])
        # Only the cycle is a trial: the pages of one cut are not independent
        # (one cut, one moment, one set of writes), so no rate per page.
        s["rate_ci95"] = binom_interval(s["corrupt"], s["tested"])
        s["lost_ci95"] = binom_interval(s["lost_tested"], s["tested"])
        s["cycles_per_hour"] = 3600 * s["cycles"] / s["seconds"] if s["seconds"] else None
        s["meets_expectation"] = not configs.judge(c, s)
    return out


def check_lines(rows):
    """The table of what each post-crash check found: per configuration and
    device model, the tested cycles in which it found damage (checks.tsv
    names the checks and the columns they are judged by, so a new check
    shows here without an edit)."""
    judged = [c for c in configs.CHECKS if any(clean is not None for _, clean in c["columns"])]
    found, kept = {}, {}
    for r in rows:
        if r["verdict"].startswith("untested"):
            continue
        f = found.setdefault((r["config"], device_model(r)), [0] + [0] * len(judged))
        k = kept.setdefault((r["config"], device_model(r)), [0] * len(judged))
        f[0] += 1
        for i, chk in enumerate(judged, 1):
            f[i] += configs.check_found(chk, r)
            # rows from before a check existed leave its columns empty
            k[i - 1] += any(r.get(col) not in (None, "") for col, _ in chk["columns"])

    def cell(key, i, n):
        ran = kept[key][i]
        if not ran:
            return "-"
        return str(found[key][i + 1]) + ("" if ran == n else f" of {ran}")
    L = ["What each check found after the cut (checks.tsv): tested cycles in which it "
         "found damage, of all tested cycles (\"k of n\": of the n cycles it ran in; \"-\": "
         "the check is newer than these cycles).  One cycle can be caught by several checks; "
         "a check that needs the server or the filesystem does not run when recovery or the "
         "mount failed.\n"]
    L.append("| configuration | device model | tested | "
             + " | ".join(c["name"] for c in judged) + " |")
    L.append("|---|---|---|" + "---|" * len(judged))
    for c in CONFIGS:
        for (c2, m), f in found.items():
            if c2 == c:
                L.append(f"| {c} | {m} | {f[0]} | "
                         + " | ".join(cell((c2, m), i, f[0]) for i in range(len(judged))) + " |")
    L.append("")
    L.append("; ".join(f"*{c['name']}*: {c['what']}" for c in judged) + ".\n")
    L += autovacuum_lines(rows)
    return L


def autovacuum_lines(rows):
    """Whether autovacuum ran during the crash loads (the visibility check
    has little to find without it): tested cycles with it on, and the
    median of its runs before the cut among them."""
    tested = [r for r in rows if not r["verdict"].startswith("untested")]
    on = [r for r in tested if r.get("autovacuum") == "on"]
    if not tested:
        return []
    runs = sorted(int(r["autovacuums"]) for r in on if (r.get("autovacuums") or "").isdigit())
    med = f"; autovacuum runs before the cut, median {runs[len(runs) // 2]}" if runs else ""
    off = (" (the others ran with it off, and the visibility check had little to find "
           "there)") if len(on) < len(tested) else ""
    return [f"Autovacuum during the load: on in {len(on)} of {len(tested)} tested "
            f"cycles{off}{med}.\n"]


def split_cell(s):
    """Torn pieces of file data, and the cycles where that is unknown (pieces
    tore before tornblk told XFS's own writes apart)."""
    unknown = s["data_torn_unknown"]
    return f"{s['data_torn']}" + (f" ({cycles(unknown)} unknown)" if unknown else "")


def rate_cell(c, s):
    """Corrupt/tested cycles and the rate's bound: a one-sided upper bound
    where the role expects no corruption, else (a control, a probe) a
    two-sided interval."""
    if not s["tested"]:
        return "n/a"
    head = f"{s['corrupt']}/{s['tested']}"
    if configs.expect(c) not in ("clean", "lost"):
        lo, hi = s["rate_ci95"]
        return f"{head} ({fmt(100 * lo, 1)}-{fmt(100 * hi, 1)}%)"
    return f"{head} (<= {fmt(100 * s['rate_upper95'], 1)}%)"


def lost_cell(c, s):
    """Cycles with lost commits; for the ledger's control (which must lose
    them) with the rate's two-sided 95% interval."""
    if configs.expect(c) != "lost" or not s["tested"]:
        return str(s["lost"])
    lo, hi = s["lost_ci95"]
    return f"{s['lost_tested']}/{s['tested']} ({fmt(100 * lo, 1)}-{fmt(100 * hi, 1)}%)"


def wal_cell(s):
    """WAL pages torn at the cuts and the cycles they tore in, of the cycles
    with a WAL device of their own ("-": pg_wal on the data device, whose
    torn pieces are counted with the data's)."""
    if not s["wal_cycles"]:
        return "-"
    return f"{s['wal_pages_torn']} ({s['wal_torn_cycles']} of {s['wal_cycles']})"


def cycles(n):
    return f"{n} cycle" + ("" if n == 1 else "s")


def met_cell(c, s):
    if not s["meets_expectation"]:
        return "**NO**"
    if no_torn_data(c) and s["data_torn_unknown"]:
        return f"yes (file data unknown in {cycles(s['data_torn_unknown'])})"
    return "yes"


def split_words(s):
    """The meaning's words for where the torn pieces were."""
    if not s["pages_torn"]:
        return ""
    unknown = s["data_torn_unknown"]
    if unknown == s["torn_cycles"]:
        return " (XFS's own writes and file data not told apart in those cycles)"
    return (f" ({s['meta_torn']} in XFS's log and metadata writes, {s['data_torn']} in file data"
            + (f"; not told apart in {cycles(unknown)} from before" if unknown else "") + ")")


def crash_groups(crash):
    """(config, model, summary) in the table's configuration order, models as first seen."""
    return [(c, m, s) for c in CONFIGS for (c2, m), s in crash.items() if c2 == c]


def fmt(v, digits=0):
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot_crash(crash, outdir):
    dat = os.path.join(outdir, "crash.dat")
    with open(dat, "w") as f:
        models = {m for (_, m) in crash}
        for c, m, s in crash_groups(crash):
            label = f"{c} ({'DMA' if m.startswith('DMA') else 'copy'})" if len(models) > 1 else c
            f.write(f"{label} {s['cycles'] - s['corrupt']} {s['corrupt']}\n")
    gnuplot(f"""set terminal pngcairo size 800,450 noenhanced
set output '{os.path.join(outdir, 'crash.png')}'
set title 'Crash cycles: clean vs corrupt after recovery'
set style data histogram
set style histogram rowstacked
set style fill solid 0.7 border -1
set boxwidth 0.5
set yrange [0:*]
set ylabel 'cycles'
set key outside right top
plot '{dat}' using 2:xtic(1) title 'clean' lc rgb '#4a9a4a', '' using 3 title 'corrupt' lc rgb '#c83c3c'
""")
    return ["crash.png"]


def read_boots(rdir):
    """boots.jsonl: one run-vm boot.json per line, with the boot's name."""
    path = os.path.join(rdir, "boots.jsonl")
    if not os.path.exists(path):
        sys.exit(f"report.py: {path} missing: no boot recorded its provenance")
    boots = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                boots.append(json.loads(line))
            except ValueError as e:
                sys.exit(f"report.py: {path}:{n}: not JSON: {e}")
    if not boots:
        sys.exit(f"report.py: {path} is empty")
    return boots


# What must be the same for two boots' numbers to be pooled.
BUILD_KEYS = ("kernel_release", "kernel_config_hash", "patch_series_hash", "accel", "qemu_version",
              "cpu_model", "cpus", "guest_cpus_online", "mem_mb")
# Recorded by run-vm from some commit on: older boots say "not recorded".
RECORDED_LATER = ("qemu_version", "cpu_model")


def recorded(v):
    """'QEMU emulator version 7.2.22 (Debian ...)' -> '7.2.22' (another
    value, such as the CPU model, as it is); boots from before run-vm
    recorded it: 'not recorded'."""
    if v in (None, "", "?"):
        return "not recorded"
    parts = str(v).split()
    return parts[3] if len(parts) > 3 and parts[:3] == ["QEMU", "emulator", "version"] else str(v)


def boot_lines(boots):
    """Markdown lines: the builds and machines the boots ran on, and each command."""
    L = []
    builds = {}
    for b in boots:
        builds.setdefault(tuple(recorded(b.get(k)) if k in RECORDED_LATER else str(b.get(k, "?"))
                                for k in BUILD_KEYS), []).append(b)
    if len(builds) > 1:
        L.append(f"**These results pool boots of {len(builds)} different kernel builds or "
                 "guest machines** (below): compare them with care.\n")
    L.append("| boots | kernel | config | patch series | accel | QEMU | CPU model | CPUs (online) | memory "
             "| commits |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for key, bs in builds.items():
        k = dict(zip(BUILD_KEYS, key))
        commits = ", ".join(sorted({b.get("repo_commit", "?") for b in bs}))
        L.append(f"| {len(bs)} | {k['kernel_release']} | {k['kernel_config_hash']} | "
                 f"{k['patch_series_hash'][:16]} | {k['accel']} | {k['qemu_version']} | {k['cpu_model']} | {k['cpus']} "
                 f"({k['guest_cpus_online']}) | {k['mem_mb']} MB | {commits} |")
    L.append("")
    L.append("Commands (inside the guest; `guest-image/run-vm` boots each, its verdict after "
             "it, then the kernel release and patch series it ran on):\n")
    runs = {}  # (name, command) -> its boots, in boot order
    for b in boots:
        runs.setdefault((b.get("name", "?"), " ".join(b.get("command", []))), []).append(b)
    for (name, cmd), bs in runs.items():
        n = len(bs)
        kernels = ", ".join(sorted({f"{b.get('kernel_release', '?')} / "
                                    f"{str(b.get('patch_series_hash', '?'))[:16]}" for b in bs}))
        L.append(f"- {name} ({n} boot{'s' if n > 1 else ''}): `{cmd}`: "
                 f"{', '.join(sorted({b.get('verdict', '?') for b in bs}))} (kernel / patch series: "
                 f"{kernels})")
    L.append("")
    return L


def host_main(rdir, report):
    """The report of workloads/hostbench: a server's own filesystems, its
    configurations in its own configs.tsv in RESULTS_DIR, its provenance in host.json."""
    with open(os.path.join(rdir, "host.json")) as f:
        host = json.load(f)
    table = read_configs(os.path.join(rdir, "configs.tsv"))
    rows = report_bench.read_rows(os.path.join(rdir, "bench", "bench.csv"))
    if not rows:
        sys.exit(f"report.py: no runs in {rdir}/bench/bench.csv")
    rel = os.path.relpath(rdir, os.path.dirname(os.path.abspath(report)))
    top, lines, js = report_bench.section(rdir, rel, rows, table,
                                          not os.environ.get("LBS_REPORT_NO_PLOTS"))
    with open(os.path.join(rdir, "bench.json"), "w") as f:
        json.dump({"host": host, "runs": rows, **js}, f, indent=1)
    settings_path = os.path.join(rdir, "bench", "pg-settings.conf")
    settings = open(settings_path).read() if os.path.exists(settings_path) else "(not recorded)\n"
    L = ["# full_page_writes on and off on this server's filesystems\n"]
    L.append(f"Generated by `{host['command']}` on {host['host']} ({host['cpus']} CPUs, kernel "
             f"{host['kernel_release']}, commit `{host['repo_commit']}`), started "
             f"{host['started']}.  Raw data: [`bench.csv`]({rel}/bench/bench.csv), "
             f"[`bench.json`]({rel}/bench.json).  This measures what full_page_writes=off gains "
             "here, not whether it is safe: run `atomicw advise MOUNT --page-size 8k` on each "
             "filesystem for that.\n")
    L += top
    L.append("## What was compared\n")
    L.append("| configuration | filesystem block | device physical block | device atomic write "
             "max | full_page_writes | where |")
    L.append("|---|---|---|---|---|---|")
    for c, t in table.items():
        L.append(f"| {c} | {t['xfs_bs']} | {t['pawu']} | {t['atomic']} | {t['fpw']} | {t['what']} |")
    L.append("")
    L.append("PostgreSQL with data checksums, the same settings for every configuration but "
             "`full_page_writes`:\n")
    L.append("```\n" + settings.rstrip() + "\n```\n")
    L += lines
    L.append("## What it means\n")
    L += js.get("meaning", [])
    L.append("")
    with open(report, "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS_DIR REPORT_MD")
    rdir, report = sys.argv[1], sys.argv[2]
    if os.path.exists(os.path.join(rdir, "host.json")):
        host_main(rdir, report)
        return
    with open(os.path.join(rdir, "meta.json")) as f:
        meta = json.load(f)
    boots = read_boots(rdir)
    bench_rows = report_bench.read_rows(os.path.join(rdir, "bench", "bench.csv"))
    crash_rows = []
    for c in CRASH_CONFIGS:
        crash_rows += read_csv(os.path.join(rdir, f"crash-{c}", "crash.csv"))
    if not bench_rows and not crash_rows and \
            not os.path.exists(os.path.join(rdir, "iobench", "iobench.csv")) and \
            not os.path.exists(os.path.join(rdir, "race", "race.csv")):
        sys.exit(f"report.py: no bench.csv, crash.csv, iobench.csv or race.csv under {rdir}")
    crash = summarize_crash(crash_rows)
    plots_on = not os.environ.get("LBS_REPORT_NO_PLOTS")  # unit tests run without gnuplot
    rel = os.path.relpath(rdir, os.path.dirname(os.path.abspath(report)))
    btop, blines, bjson = report_bench.section(rdir, rel, bench_rows, CONFIG_TABLE, plots_on) \
        if bench_rows else ([], [], {})

    with open(os.path.join(rdir, "bench.json"), "w") as f:
        json.dump({"meta": meta, "boots": boots, "runs": bench_rows, **bjson}, f, indent=1)
    with open(os.path.join(rdir, "crash.json"), "w") as f:
        json.dump({"meta": meta, "boots": boots, "cycles": crash_rows,
                   "summary": [{"config": c, "device_model": m, **s}
                               for c, m, s in crash_groups(crash)]}, f, indent=1)
    if plots_on and crash_rows:
        plot_crash(crash, rdir)

    settings_path = os.path.join(rdir, "bench", "pg-settings.conf")
    settings = open(settings_path).read() if os.path.exists(settings_path) else "(not recorded)\n"
    L = []
    L.append("# Can PostgreSQL drop full-page writes on 16k-block XFS with atomic writes?\n")
    L.append(f"Generated by `{meta['command']}` ({meta['mode']} mode; last invocation from "
             f"{meta['started']} to {meta['finished']}, commit `{meta['repo_commit']}`) on a "
             f"{meta['host_cpus']}-CPU host, from {len(boots)} guest boots.  Raw data: "
             f"[`bench.csv`]({rel}/bench/bench.csv), [`bench.json`]({rel}/bench.json), "
             f"[`crash.json`]({rel}/crash.json), [`boots.jsonl`]({rel}/boots.jsonl), and each "
             f"boot's `output.txt` and `dmesg.txt`.\n")
    if bench_rows:
        L += report_dba.answer(bench_rows, crash, CONFIG_TABLE)
    L += btop
    L.append("## What was compared\n")
    L.append("| configuration | XFS block | device power-fail atomic unit | REQ_ATOMIC | "
             "full_page_writes | wal_compression | synchronous_commit | pg_wal | "
             "XFS mount options | role |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    seen = {r["config"] for r in bench_rows + crash_rows}
    for c, t in CONFIG_TABLE.items():
        if c in seen:
            au = f"{int(t['atomic']) // 1024}k" if t["atomic"] != "0" else "none"
            L.append(f"| {c} | {int(t['xfs_bs']) // 1024}k | {int(t['pawu']) // 1024}k | {au} | "
                     f"{t['fpw']} | {t['walcomp']} | {t['sync']} | {t['pg_wal']} | "
                     f"{t['xfs_mount']} | {t['role']}: {t['what']} |")
    L.append("")
    L.append("The device is `tornblk`, our RAM block device with a volatile write cache: at a power "
             "cut, every write not yet flushed persists one power-fail unit at a time on a seeded "
             "coin (a REQ_ATOMIC write whole or not at all).  The data directory lives on the device "
             "under test; `pg_wal` on a second tornblk device (XFS 4k, 4k unit) that loses power "
             "at the same moment, as on a server with a separate WAL volume (pg_wal *own*), or in "
             "the data directory on the filesystem under test (pg_wal *data*: one device, one cut).  PostgreSQL 15 with "
             "data checksums (`initdb -k`).  Device model of the benchmark: "
             f"{', '.join(sorted({device_model(r) for r in bench_rows})) or 'no benchmark'} (with "
             "DMA capture a write() into a block under writeback waits where the file has stable "
             "writes, so that cost of the buffered fix is in the numbers: compare lbs-atomic-wb "
             "with lbs-only, the same device without atomic writes).  The benchmark's settings, "
             "identical in every configuration except `full_page_writes`, `wal_compression`, "
             "`synchronous_commit` and where `pg_wal` is:\n")
    L.append("```\n" + settings.rstrip() + "\n```\n")
    L += boot_lines(boots)
    L += blines
    L += report_bench.iobench_section(rdir)
    if crash_rows:
        L.append("## Crash and verify\n")
        L.append("Each cycle: fresh devices and cluster, sysbench oltp_write_only plus a ledger client "
                 "that records every commit it saw acknowledged, then a CHECKPOINT while the data "
                 "device holds back flushes: when the checkpoint's first fsync waits on the device, "
                 "every write it issued is in the volatile cache and their number N is known.  The "
                 "cut lands after a write k drawn uniformly from 1..N (k = N, right before the fsync, "
                 "in every fourth cycle): later writes are lost whole, earlier unflushed ones persist "
                 "power-fail unit by unit on a seeded coin.  Every other fourth cycle (cut_mode evict; "
                 "the earlier rows have none) has no CHECKPOINT: with 4MB of shared_buffers and the kernel writing "
                 "dirty pages back within a second, the cut falls among eviction writes, N being "
                 "what the device holds unflushed after 3 s.  Data and WAL devices lose power at the "
                 "same instant: right after the WAL device acknowledged a write it has not flushed "
                 "yet, one of 16k or more (two WAL pages) where one comes within 2 s (column "
                 "wal_cut: *pages*, else *page*; earlier rows: any write), so that the coin can "
                 "tear the WAL's tail; redo must end cleanly at its first torn record.  With "
                 "pg_wal *data* there is one device, and the cut at write k takes the WAL writes "
                 "among the first k with it (wal_cut *data*); every commit's WAL flush then "
                 "empties the device's cache (the loop lets the flushes that are not the "
                 "checkpoint's fsync through, as a device would), so fewer writes are in flight at "
                 "the cut than with a WAL device of its own, as on a real server with one device.  Then XFS log recovery, PostgreSQL crash recovery and the checks: the "
                 "recovery log searched for page verification failures and zeroed pages, "
                 "`pg_amcheck --all --heapallindexed --parent-check --rootdescend`, pg_visibility, "
                 "the ledger, a clean stop, `pg_checksums --check` and `xfs_repair -n`.  A cycle is "
                 "*corrupt* if any check fails, *untested* if it had no acknowledged commit, nothing "
                 "cached at the cut or no WAL redo.  *Pages in flight*: page-sized pieces (the "
                 "configuration's PostgreSQL page: 8k, 16k for pg16k-*) of the data "
                 "device's unflushed writes at the cut; *torn*: those whose persisted and lost parts "
                 "both differ from the old media, so that a reader sees a mix (counted by tornblk); "
                 "*of them file data*: torn pieces that were not in XFS's own log or metadata "
                 "writes (tornblk sees the REQ_META flag XFS sets on those; cycles from before it "
                 "did are *unknown* when anything tore).  "
                 "Rates are per tested cycle, the only independent trial (the pages of one cut "
                 "share its moment and its writes, so no rate is given per page): for a "
                 "protected configuration a one-sided 95% upper bound (Clopper-Pearson; about 3/n "
                 "for 0 of n), for a control or a probe a two-sided 95% interval.  "
                 "*Device model*: whether tornblk copied write data at submission or captured it "
                 "page by page after submission, as a real device's DMA does (only the latter can "
                 "show the page-cache writeback race); cycles of different models are counted "
                 "in separate rows, never pooled.\n")
        L.append("| configuration | device model | cycles | untested | corrupt | corrupt rate per cycle (95%) | "
                 "pages in flight | torn at the cut | cycles with a torn page | "
                 "of them file data | lost commits (cycles) | commits checked | "
                 "WAL pages torn (cycles) | cycles/hour | expectation | met |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for c, m, s in crash_groups(crash):
            L.append(f"| {c} | {m} | {s['cycles']} | {s['untested']} | "
                     f"{s['corrupt']} | {rate_cell(c, s)} | "
                     f"{s['pages_in_flight']} | {s['pages_torn']} | {s['torn_cycles']} | "
                     f"{split_cell(s)} | {lost_cell(c, s)} | {s['commits_seen']} | "
                     f"{wal_cell(s)} | {fmt(s['cycles_per_hour'], 0)} | {EXPECT[c]} | "
                     f"{met_cell(c, s)} |")
        L.append("")
        L.append("Where the cuts fell (crash.sh): among the writes a CHECKPOINT issued (position "
                 "drawn uniformly), right after its last write before its fsync, or among "
                 "eviction writes during the load (small shared_buffers, no checkpoint).  "
                 "Each cell: corrupt/tested cycles, page-sized pieces of the data device's writes in "
                 "flight (XFS log writes included).\n")
        L.append("| configuration | device model | " + " | ".join(CUT_WHERE) + " |")
        L.append("|---|---|" + "---|" * len(CUT_WHERE))
        for c, m, s in crash_groups(crash):
            cells = [f"{s['where'][w][1]}/{s['where'][w][0]}, {s['where'][w][2]}"
                     if s["where"][w][0] else "-" for w in CUT_WHERE]
            L.append(f"| {c} | {m} | " + " | ".join(cells) + " |")
        L.append("")
        L += check_lines(crash_rows)
        L.append(f"![crash.png]({rel}/crash.png)\n")
    L += superseded_lines(rdir, rel)
    L.append("## What it means\n")
    L += bjson.get("meaning", [])
    L += meaning(crash)
    if crash:
        L += exposure_lines(crash)
    L += report_race.race_section(rdir, os.path.join(os.path.dirname(os.path.abspath(__file__)), "race.tsv"))
    L.append("## Before you turn it off on your own server\n")
    L.append("These results hold for the stack they ran on.  On a real server, run "
             "`atomicw advise DATADIR` first (it only reads; `--innodb` for an InnoDB data "
             "directory): it checks the filesystem and its block size against the database "
             "page, statx's atomic write limits of a file in the directory, every layer of the "
             "block device stack in sysfs (the atomic write unit, partition offsets, dm, md and "
             "loop layers, chunk sizes, atomic boundaries, the write cache; as root also where "
             "each linear or striped dm target maps) and, for a database "
             "that writes through the page cache, whether the kernel keeps buffered blocks "
             "untorn (`/sys/fs/xfs/DEV/untorn_buffered_bytes`, which only a kernel with this "
             "project's buffered patches has).  It says SAFE, UNSAFE or UNKNOWN with the reason "
             "and the setting to change or keep.  What it cannot see: whether the drive really "
             "keeps the atomic unit it advertises, and whether it honours cache flushes.\n")
    L.append("## Caveats\n")
    L.append("- The device is emulated (tornblk, RAM): its power-fail model is the one described "
             "above, not any real drive's.  A drive that claims a 16k atomic unit has to really "
             "keep it; this shows what PostgreSQL gets if it does.")
    L.append("- The guest runs under QEMU TCG (software emulation), tens of transactions per second: "
             "absolute numbers mean nothing; compare configurations within this run only.")
    L.append("- Small data sets sized for the emulator (see above).  Ratios are medians of "
             "per-repetition ratios with an order-statistic interval; with 5 repetitions or "
             "fewer (the short mode) there is no interval, only the min–max.  The CHECKPOINT command is an immediate checkpoint: "
             "it writes as fast as it can instead of spreading its writes as the timer's "
             "checkpoints do (see the timed runs for those).")
    L.append("- The cut is placed in the checkpoint's writeback on purpose: that is when pages can "
             "tear.  A cycle without a torn page in flight proves nothing by itself, which is why "
             "the controls must show corruption.")
    L.append("- PostgreSQL does not use RWF_ATOMIC: it writes through the page cache.  On lbs-atomic "
             "and lbs-atomic-wb it relies on our kernel's buffered fix (kernel/patches, the buffered "
             "part): a file whose 16k block lies within the device's atomic unit range gets stable "
             "writes (write() waits while its block is being written back, so the device never reads "
             "a half-updated block) and its writeback sends each block as one REQ_ATOMIC write.  "
             "Upstream kernels have neither; without them a device that reads data by DMA after "
             "submission can store a torn block (kernel/tests/writeback-race.sh shows it).  XFS's own "
             "metadata blocks on such a filesystem are written as REQ_ATOMIC too (patch 0028): "
             "without that, a device that tears plain writes left lbs-atomic-wb's filesystem "
             "unmountable (a torn directory block that log recovery does not repair; see the "
             "superseded evidence and kernel/tests/xfs-meta-untorn.sh).")
    if bench_rows and any(device_model(r) == "copy at submission" for r in bench_rows):
        L.append("- Benchmark rows whose devices copy write data at submission (no DMA capture) "
                 "never wait for writeback, so the cost of the stable writes (a write() into a "
                 "16k block under writeback, the neighbouring 8k page included, waits for it) is "
                 "not in their TPS.")
    if bench_rows and any(device_model(r) != "copy at submission" for r in bench_rows):
        L.append("- The DMA capture delay (microseconds per page, in the device model column) is "
                 "a model parameter, not calibrated against any drive, on an emulated CPU that is "
                 "itself tens of times slower than a real one: read the cost of the stable writes "
                 "it shows as indicative, not as a figure for real hardware.")
    with open(report, "w") as f:
        f.write("\n".join(L) + "\n")


def superseded_lines(rdir, rel):
    """Evidence a fix made obsolete: superseded/NAME/ holds the crash.csv and
    logs moved out of crash-CONFIG when a change altered what that
    configuration does, and NOTE.md says which change and why.  Never pooled
    with the current rows; shown so that what was found stays in view."""
    top = os.path.join(rdir, "superseded")
    if not os.path.isdir(top):
        return []
    L = ["### Superseded evidence\n",
         "Cycles run before a change that altered what their configuration does; not pooled "
         "with the rows above.  Each directory's NOTE.md says which change and why.\n"]
    for name in sorted(os.listdir(top)):
        rows = read_csv(os.path.join(top, name, "crash.csv"))
        note_path = os.path.join(top, name, "NOTE.md")
        if not rows or not os.path.exists(note_path):
            raise ValueError(f"{top}/{name}: a superseded run needs its crash.csv and NOTE.md")
        with open(note_path) as f:
            note = f.read().split("\n\n")[0].replace("\n", " ").strip()
        for (c, m), g in summarize_crash(rows).items():
            L.append(f"- [`{name}`]({rel}/superseded/{name}/NOTE.md), {c} ({m}): {g['cycles']} cycles, "
                     f"{g['corrupt']} corrupt, {g['untested']} untested, {g['pages_torn']} 8k pages "
                     f"torn at the cuts.  {note}")
    L.append("")
    return L


def clean_words(c, clean, most=5):
    """Configuration c's clean cycles (a control's), each with what was in
    flight and torn at its cut."""
    if not clean:
        return ""
    parts = []
    for r in clean[:most]:
        torn, meta = r["pages_torn"] or "?", r["meta_pages_torn"]
        if meta == "":
            split = ", not told apart from XFS's writes" if torn not in ("0", "?") else ""
        else:
            split = f", {meta} of them in XFS's writes"
        where = r.get("race_piece") or "NA"
        # (race cuts: the write copied from two versions, FILE@PAGE+PAGES)
        where = "" if where == "NA" else f", the torn copy in {where}"
        parts.append(f"cycle {r['cycle']} (seed {r['seed']}, {r['commit']}): cut after write "
                     f"{r['cut_pos'] or '?'} of {r['unflushed_writes'] or '?'} ({r['cut_mode'] or 'fsync'}), "
                     f"{r['pages_in_flight'] or '?'} {page_k(c)} pieces in flight, {torn} torn{split}{where}")
    more = f"; and {len(clean) - most} more in crash.csv" if len(clean) > most else ""
    return f"  Clean: {'; '.join(parts)}{more}."


def exposure(c, dma):
    """What can and cannot tear file data or XFS metadata of configuration c
    in the crash model (tornblk's cut, DMA capture of dma us a page), from
    configs.tsv's columns and what the kernel does with them: ([can], [cannot])."""
    t = CONFIG_TABLE[c]
    bs, pawu, au, page = int(t["xfs_bs"]), int(t["pawu"]), int(t["atomic"]), int(t["pg_bs"])
    off = "nountorn" in t["xfs_mount"].split(",")
    untorn = bs > 4096 and au >= bs and not off  # the kernel's untorn buffered writes
    can, cannot = [], []
    if untorn and bs >= page:
        cannot.append(f"the device tearing a page at the cut (each {bs // 1024}k block goes as "
                      "one REQ_ATOMIC write, kept or lost whole)")
    elif bs >= page and pawu >= bs:
        cannot.append(f"the device tearing a page at the cut (its {pawu // 1024}k power-fail unit "
                      f"holds a {bs // 1024}k block)")
    else:
        why = (f"a {page // 1024}k page spans {bs // 1024}k blocks" if bs < page else
               f"plain writes persist in {pawu // 1024}k units")
        can.append(f"the device tearing a page at the cut ({why}"
                   + (", the buffered fix switched off" if off else "") + ")")
    if not dma:
        cannot.append("the writeback DMA race (data copied at submission)")
    elif untorn:
        cannot.append("the writeback DMA race (stable writes: a write() waits for its block's "
                      "writeback)")
    else:
        can.append("the writeback DMA race (no stable writes: a page changed while the device "
                   "reads it is kept mixed)"
                   + ("; every cut right after the device copied a piece from two versions"
                      if t.get("cuts") == "race" else ""))
    if untorn or pawu >= bs:
        cannot.append("torn XFS metadata blocks")
    else:
        can.append("torn XFS metadata blocks")
    whole = t["pg_wal"] == "data" and (untorn or pawu >= bs)
    where = "on this filesystem" if t["pg_wal"] == "data" else "on its own 4k volume"
    if t["sync"] == "off":
        can.append(f"losing acknowledged commits (synchronous_commit off: the unflushed WAL tail "
                   f"holds them, pg_wal {where}; expected, the ledger's control)")
    elif whole:
        cannot.append(f"a torn WAL page (pg_wal {where}, whose blocks go whole as the data's)")
    else:
        cannot.append(f"a torn page of acknowledged WAL (pg_wal {where}: a rewritten WAL page "
                      "holds the same acknowledged prefix in both versions; only the unflushed "
                      "tail can tear, which redo must stop at)")
    return can, cannot


def exposure_lines(crash):
    """For each configuration in the crash evidence: what it can fail through
    in the model, and what it cannot, so that a clean protected row is read
    for what it tested."""
    L = ["What each configuration can fail through in the model (from its columns; "
         "full-page images, where on, repair a torn page of file data):\n"]
    for c in dict.fromkeys(c for c, _, _ in crash_groups(crash)):
        dmas = {int(m.split()[2]) if m.startswith("DMA") else 0
                for c2, m, _ in crash_groups(crash) if c2 == c}
        can, cannot = exposure(c, max(dmas))
        if CONFIG_TABLE[c]["fpw"] == "on":
            can = [x if x.startswith("losing") else x + " (repaired by full-page images)"
                   for x in can]
        L.append(f"- {c}: can fail through " + ("; ".join(can) if can else "nothing the "
                 "model injects") + "; cannot through " + "; ".join(cannot) + ".")
    L.append("")
    return L


def meaning(crash):
    L = []
    models = {m for (_, m) in crash}
    for c, m, s in crash_groups(crash):
        name = f"{c} ({m})" if len(models) > 1 else c
        if is_protected(c):
            L.append(f"- {name}: {s['corrupt']} corrupt cycles and {s['lost']} with lost commits out of "
                     f"{s['tested']} tested (95% upper bound on the corruption rate per cycle "
                     f"{fmt(100 * (s['rate_upper95'] or 1), 1)}%), with {s['pages_in_flight']} pages in "
                     f"flight and {s['pages_torn']} torn at the cuts" + split_words(s)
                     + ((" — the full-page images in WAL repaired every torn page of file data."
                         if CONFIG_TABLE[c]["fpw"] == "on" else
                         f" — without full-page writes: every {int(CONFIG_TABLE[c]['xfs_bs']) // 1024}k "
                         f"block of file data, and so every {page_k(c)} page in it, persisted whole or "
                         "not at all.")
                        if s['meets_expectation'] else " — THIS VIOLATES THE EXPECTATION."))
        elif configs.expect(c) == "lost":
            lo, hi = s["lost_ci95"] or (None, None)
            L.append(f"- {name}: acknowledged commits lost in {s['lost_tested']} of {s['tested']} tested "
                     f"cycles (rate per cycle {fmt(100 * (lo or 0), 1)}-{fmt(100 * (hi or 0), 1)}%, "
                     f"two-sided 95%), {s['corrupt']} corrupt"
                     + (" — the ledger check bites: a commit the client saw can be caught missing."
                        if s["meets_expectation"] else " — THIS VIOLATES THE EXPECTATION."))
        elif configs.expect(c) != "corrupt":
            ci = s["rate_ci95"]
            L.append(f"- {name}: {s['corrupt']} of {s['tested']} tested cycles corrupt"
                     + (f" (rate per cycle {fmt(100 * ci[0], 1)}-{fmt(100 * ci[1], 1)}%, two-sided "
                        "95%)" if ci else "")
                     + f"; a probe, no expectation: {CONFIG_TABLE[c]['what']}."
                     + probe_finding(c, s, crash))
        else:
            why = CONFIG_TABLE[c]["what"]
            if s['meets_expectation']:
                verdict = f" — the loop bites: {why}."
            elif s['corrupt']:
                verdict = (f" — fewer than the {CONTROL_MIN_RATE:.0%} a control must reach: the cuts "
                           "miss pages in flight too often for this run to prove the claim.")
            else:
                verdict = " — the control never showed corruption: this run does not prove the claim."
            L.append(f"- {name}: {s['corrupt']} of {s['tested']} tested cycles corrupt" + verdict
                     + clean_words(c, s["clean_cycles"]))
    L.append("")
    L += race_lines(crash)
    L += wal_lines(crash)
    return L


def probe_finding(c, s, crash):
    """What a probe shows, in words: its configuration with one protection
    switched off (its "what" names the configuration first) against that
    configuration with it on, on the same device model."""
    base = CONFIG_TABLE[c]["what"].split()[0]
    on = [x for (c2, _), x in crash.items() if c2 == base]
    if base not in CONFIG_TABLE or not on or not s["tested"]:
        return ""
    k, n = sum(x["corrupt"] for x in on), sum(x["tested"] for x in on)
    with_it = (f"with the protection on ({base}) {k} of {n} (95% upper bound "
               f"{fmt(100 * (binom_upper(k, n) or 1), 1)}%)")
    if s["corrupt"]:
        return (f"  **Finding: PostgreSQL reached this hazard.** With it open, a damaged page "
                f"reached the media and was found in {s['corrupt']} of {s['tested']} cycles; "
                f"{with_it}: in this model the protection is necessary, not only sufficient "
                "(the rate's interval above is wide).")
    return (f"  Within that bound PostgreSQL did not reach this hazard under these loads; "
            f"{with_it}.")


def race_lines(crash):
    """How often the writeback race had its chance: pages of the data device
    that changed while tornblk was still capturing them (kernel/tornblk:
    dma_pages_changed, over each cycle's load), per configuration with
    cycles that recorded it."""
    rows = [(c, m, s) for c, m, s in crash_groups(crash) if s["dma_cycles"]]
    if not rows:
        return []
    L = ["The writeback race's chances, counted by the device: pages PostgreSQL (or XFS) "
         "changed while tornblk was still reading them by DMA, over each cycle's load (0 "
         "wherever the file has stable writes; a change is a chance to tear, not a tear):\n"]
    for c, m, s in rows:
        mixed = ""
        if s.get("dma_mixed_cycles"):
            mixed = (f"; {page_k(c)} pieces copied from two versions (torn by the race): "
                     f"{s['dma_pieces_mixed']} in the {s['dma_mixed_cycles']} cycles that counted them")
        L.append(f"- {c} ({m}): {s['dma_pages_changed']} pages in {s['dma_changed_cycles']} of "
                 f"{s['dma_cycles']} cycles{mixed}.")
    L.append("")
    # What a torn copy does once it is on the media: the configurations cut
    # right after the race tore a page (configs.tsv's cuts "race").
    for c, m, s in crash_groups(crash):
        if CONFIG_TABLE[c].get("cuts") != "race" or not s["tested"]:
            continue
        L.append(f"What the race's torn copy does to PostgreSQL once it is on the media: {c} ({m}) cut "
                 "each cycle right after the device copied an 8k piece from two versions (tornblk's "
                 "detector), made durable as by a cache flush: "
                 f"{rate_cell(c, s)} of its tested cycles corrupt ({s['recovery_failed']} of them failed "
                 "crash recovery).  The rate is given such a copy, not per crash: how often one reaches "
                 "the media before the write that repairs it is what the probe above measures.  A torn "
                 "page that redo rewrites whole, or one of a file without checksums (pg_xact and the "
                 "other SLRUs), is not found, so a rate below 100% is expected.\n")
    return L


def wal_lines(crash):
    """How often the WAL's unflushed tail tore at the cuts, over the cycles
    with a WAL device of their own and synchronous_commit on, and how many
    were cut right after a write of 16k or more; beside it the same for
    synchronous_commit off, and why the two differ."""
    def sums(sync):
        sel = [s for k, s in crash.items() if CONFIG_TABLE[k[0]]["sync"] == sync]
        return {k: sum(s[k] for s in sel) for k in ("wal_cycles", "wal_torn_cycles",
                                                     "wal_pages_torn", "wal_cut_pages")}
    on, off = sums("on"), sums("off")
    if not on["wal_cycles"]:
        return []
    n = on["wal_cycles"]
    L = [f"The WAL's unflushed tail tore (an 8k piece of the WAL device part new, part old) "
         f"in {on['wal_torn_cycles']} of {n} cycles with a WAL device of their own and "
         f"synchronous_commit on, {on['wal_pages_torn']} pieces in all.  {on['wal_cut_pages']} of "
         f"the {n} cycles were cut right after a cached write of 16k or more (the rest after a "
         "shorter one, or before the cut waited for one).  A torn tail is never acknowledged WAL: "
         "redo ends at its first bad record, and the recovery and ledger checks above say whether "
         "it did so cleanly."]
    if off["wal_cycles"]:
        L.append(f"With synchronous_commit off it tore in {off['wal_torn_cycles']} of "
                 f"{off['wal_cycles']} cycles ({off['wal_pages_torn']} pieces).  The difference is "
                 "PostgreSQL's, not the model's (a likely reading, not measured write by write): with "
                 "synchronous_commit on every commit flushes the WAL, so the WAL device's cache holds "
                 "little more than the current commit's write, which rewrites the page the last flush "
                 "left partly filled (where the part already on the media is unchanged, that piece "
                 "cannot tear) and starts the next; an 8k piece tears only where both of its halves "
                 "are new.  The WAL writer's writes under synchronous_commit off carry many commits' "
                 "records across fresh pages.")
    L.append("")
    return L


if __name__ == "__main__":
    main()
