"""The benchmark part of the report: bench.csv and series/ from bench.sh.

Fixed-work runs (mode "fixed") give, per cell (workload, K = transactions
per checkpoint, N transactions), each configuration's numbers per
repetition; ratios against the reference configuration are taken within a
repetition (the same boot, the same round of the Williams design) and
summarised as their median with a distribution-free interval (stats.py).
The noise floor is the "noise" configuration of configs.tsv, an identical
copy of its reference, per cell and metric: its interval should include
1.0, and an effect counts as outside the noise only when its interval lies
beyond the twin's spread.  Timed runs (mode "timed") give the per-second
TPS with the checkpoints marked, and its coefficient of variation.
"""
import csv
import math
import os
import subprocess

import stats
from configs import num  # noqa: F401  (report.py and the tests take it from here)

# Per-run numbers summarised for each cell: (column, label, digits).
FIXED_METRICS = [
    ("tps", "TPS", 1),
    ("tps_cv", "TPS CV (timed)", 3),
    ("lat_p99_ms", "p99 ms", 1),
    ("checkpoints_req", "checkpoints requested", 0),
    ("checkpoints_timed", "checkpoints by the timer", 0),
    ("dev_bytes_per_txn", "data+WAL device B/txn", 0),
    ("wal_bytes_per_txn", "WAL B/txn (PostgreSQL)", 0),
    ("wal_dev_bytes_per_txn", "WAL device B/txn", 0),
    ("fpi_per_txn", "FPI/txn", 3),
    ("data_dev_bytes_per_txn", "data device B/txn", 0),
    ("data_dev_bytes", "data device MB", 1),
    ("data_dev_read_bytes_per_txn", "data device read B/txn", 0),
    ("recovery_s", "redo s", 2),
    ("restart_s", "restart s", 2),
    ("recovery_wal_bytes", "recovery WAL MB", 2),
    ("buffers_backend", "backend writes", 0),
    ("buffers_clean", "bgwriter writes", 0),
    ("autovacuums", "autovacuum/analyze", 0),
]
# Ratios against the reference in the summary table: (column, label).
RATIO_METRICS = [("tps", "TPS"), ("tps_cv", "TPS variability (CV, timed)"), ("lat_p99_ms", "p99 latency"),
                 ("dev_bytes_per_txn", "data+WAL device bytes/txn"),
                 ("wal_bytes_per_txn", "WAL/txn"), ("data_dev_bytes_per_txn", "data device bytes/txn"),
                 ("recovery_s", "redo time")]
# Metrics derived from a row's columns: name -> the columns summed.
DERIVED = {"dev_bytes_per_txn": ("data_dev_bytes_per_txn", "wal_dev_bytes_per_txn")}
SCALE = {"data_dev_bytes": 1 / 2**20, "recovery_wal_bytes": 1 / 2**20}
REFERENCE = "baseline"  # configs.tsv's; a table may name its own (role "reference")


def reference_of(table):
    """The configuration everything is compared with."""
    return next((c for c, t in table.items() if t["role"] == "reference"), REFERENCE)
REQUIRED = ("mode", "config", "workload", "rep", "ckpt_every", "tps")


def read_rows(path):
    """bench.csv rows; a file of an older bench.sh is refused with the reason."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows:
        missing = [c for c in REQUIRED if c not in rows[0]]
        if missing:
            raise SystemExit(f"report.py: {path} lacks the columns {', '.join(missing)}: it was "
                             "written by an older bench.sh; move it away, or start the mode again with "
                             "--discard-evidence")
    return rows


def noise_pairs(table):
    """{noise configuration: the one it copies} from configs.tsv's noise rows."""
    return {c: t["what"].split()[0] for c, t in table.items() if t["role"] == "noise"}


def metric(r, m):
    """Row r's value of metric m (a column, or one DERIVED from columns), or None."""
    if m in DERIVED:
        parts = [num(r.get(c)) for c in DERIVED[m]]
        return None if None in parts else sum(parts)
    return num(r.get(m))


def ckey(r):
    """A run's cell: its workload and K; runs of another amount of work (another
    mode of workloads/run) form cells of their own, K written as K/N.  Timed
    runs (checkpoint_timeout 30s) form one cell per workload, K "timed".  Runs
    with the page cache limited (page_cache_mb, empty or 0 in runs without a
    limit) are cells of their own, the limit named with the workload."""
    wl = r["workload"]
    pc = num(r.get("page_cache_mb"))
    if pc:
        wl += f" (page cache {pc:g} MB)"
    if r["mode"] == "timed":  # K "timedSEC" ("0" before runs had a length in it)
        return wl, r["ckpt_every"] if r["ckpt_every"].startswith("timed") else "timed"
    return wl, f"{r['ckpt_every']}/{r['transactions']}"


def kdesc(k):
    """'1000/3000' -> 'every 1000 of 3000 transactions'; 'wal32/3000' (the
    size-triggered regime) -> 'by WAL volume (max_wal_size 32 MB), 3000
    transactions'."""
    if k.startswith("timed"):
        return ("by the timer (checkpoint_timeout 30s), timed runs"
                + (f" of {k[5:]} s" if k[5:] else ""))
    every, n = k.split("/")
    if every.startswith("wal"):
        return f"by WAL volume (max_wal_size {every[3:]} MB), {n} transactions"
    return f"every {every} of {n} transactions"


def cells(rows):
    """The cells in first-seen order, the fixed-work ones first: (workload, K/N)
    and then (workload, "timed")."""
    out = []
    for mode in ("fixed", "timed"):
        for r in rows:
            if r["mode"] == mode and ckey(r) not in out:
                out.append(ckey(r))
    return out


def summarize(rows):
    """(workload, K, config) -> {metric: stats.summary} over repetitions."""
    acc = {}
    for r in rows:
        d = acc.setdefault((*ckey(r), r["config"]), {})
        for m, _, _ in FIXED_METRICS:
            v = metric(r, m)
            d.setdefault(m, []).append(None if v is None else v * SCALE.get(m, 1))
    return {k: {m: stats.summary(v) for m, v in d.items()} for k, d in acc.items()}


def ratios(rows, noise, reference=REFERENCE):
    """(workload, K, config, metric) -> summary of per-repetition ratios against
    the reference (baseline; a noise configuration against the one it copies)."""
    by = {(*ckey(r), r["rep"], r["config"]): r for r in rows}
    acc = {}
    for (w, k, rep, c), r in by.items():
        ref = by.get((w, k, rep, noise.get(c, reference)))
        if not ref or ref is r:
            continue
        for m, _ in RATIO_METRICS:
            x, y = metric(r, m), metric(ref, m)
            if x is not None and y:
                acc.setdefault((w, k, c, m), []).append(x / y)
    return {k: stats.summary(v) for k, v in acc.items()}


def fmt(v, digits=0):
    return "n/a" if v is None else f"{v:,.{digits}f}"


def cell(s, digits=0):
    """median (min–max) over repetitions."""
    if not s:
        return "n/a"
    if s["n"] == 1:
        return fmt(s["median"], digits)
    return f"{fmt(s['median'], digits)} ({fmt(s['min'], digits)}–{fmt(s['max'], digits)})"


def ratio_cell(s):
    """median ratio [interval], or its min–max when too few for an interval."""
    if not s:
        return "n/a"
    if s["ci95"]:
        lo, hi = s["ci95"]
        return f"{s['median']:.2f}x [{lo:.2f}–{hi:.2f}]"
    if s["n"] == 1:
        return f"{s['median']:.2f}x (1 rep)"
    return f"{s['median']:.2f}x ({s['min']:.2f}–{s['max']:.2f}, {s['n']} reps: no interval)"


def noise_verdicts(rat, noise, cell_list):
    """[(workload, K, config, metric, summary, includes 1.0)] for the noise pairs."""
    out = []
    for w, k in cell_list:
        for c in noise:
            for m, _ in RATIO_METRICS:
                s = rat.get((w, k, c, m))
                if s and s["ci95"]:
                    out.append((w, k, c, m, s, s["ci95"][0] <= 1.0 <= s["ci95"][1]))
    return out


def verdict(s, twin):
    """Whether an effect (summary of ratios) is outside the noise: its interval
    must lie beyond the twin's spread, the largest distance of the twin's
    interval from 1.0 (on a log scale, both ways)."""
    if not s or not s["ci95"]:
        return "no interval (too few repetitions)"
    lo, hi = s["ci95"]
    if not twin or not twin["ci95"]:
        return ("interval excludes 1.0 (no noise floor in this run)" if not lo <= 1.0 <= hi
                else "within the noise")
    m = max(abs(math.log(twin["ci95"][0])), abs(math.log(twin["ci95"][1])))
    spread = f"±{100 * (math.exp(m) - 1):.1f}%"
    if lo > math.exp(m) or hi < math.exp(-m):
        return f"outside the noise (beyond the twin's {spread})"
    if lo <= 1.0 <= hi:
        return "within the noise"
    return f"interval excludes 1.0 but not the twin's spread ({spread})"


def read_series(rdir, workload, config):
    """Per-second TPS [(second, tps)] and checkpoints [(start, end)] of a timed run."""
    base = os.path.join(rdir, "bench", "series", f"{workload.replace(':', '-')}-{config}")
    tps, ckpt = [], []
    if os.path.exists(base + ".tps"):
        with open(base + ".tps") as f:
            tps = [tuple(float(x) for x in line.split()[:2]) for line in f if line.strip()]
    if os.path.exists(base + ".ckpt"):
        with open(base + ".ckpt") as f:
            ckpt = [tuple(float(x) for x in line.split()[:2]) for line in f if line.strip()]
    return tps, ckpt


def timed_summary(rdir, rows, configs):
    """workload -> [(config, row, per-second variance, checkpoints)]."""
    out = {}
    for r in rows:
        if r["mode"] != "timed" or r["rep"] != "1":  # the first repetition plotted
            continue
        tps, ckpt = read_series(rdir, r["workload"], r["config"])
        # The first 5 seconds ramp up: not part of the steady state.
        var = stats.variance([t for s, t in tps if s > 5])
        out.setdefault(r["workload"], []).append((r["config"], r, var, len(ckpt)))
    for w in out:
        out[w].sort(key=lambda x: configs.index(x[0]) if x[0] in configs else len(configs))
    return out


def plot_series(rdir, workload, entries):
    """One PNG per workload: a panel per configuration, TPS per second, the
    checkpoints shaded."""
    fname = f"tps-{workload.replace(':', '-')}.png"
    panels = []
    for c, _, _, _ in entries:
        base = os.path.join(rdir, "bench", "series", f"{workload.replace(':', '-')}-{c}")
        _, ckpt = read_series(rdir, workload, c)
        rects = "\n".join(f"set object {i + 1} rect from {s},graph 0 to {e},graph 1 "
                          "fc rgb '#f0c8c8' fs solid 0.5 noborder behind"
                          for i, (s, e) in enumerate(ckpt))
        panels.append(f"unset object\n{rects}\nset title '{c}'\n"
                      f"plot '{base}.tps' using 1:2 with lines lw 1 lc rgb '#2060a0' notitle\n")
    script = (f"set terminal pngcairo size 900,{230 * len(entries) + 60} noenhanced\n"
              f"set output '{os.path.join(rdir, fname)}'\n"
              f"set multiplot layout {len(entries)},1 title '{workload}: TPS per second, "
              "checkpoints shaded'\nset yrange [0:*]\nset grid ytics\nset ylabel 'TPS'\n"
              "set tics font ',9'\nset ytics scale 0.5\n"
              + "".join(panels) + "unset multiplot\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return fname


def plot_ratios(rdir, rat, cell_list, configs, reference):
    """TPS against the reference per cell and configuration: median with its interval."""
    dat = os.path.join(rdir, "tps-ratio.dat")
    with open(dat, "w") as f:
        for w, k in cell_list:
            for c in configs:
                s = rat.get((w, k, c, "tps"))
                if not s:
                    continue
                lo, hi = s["ci95"] if s["ci95"] else (s["min"], s["max"])
                f.write(f"\"{w} K={k} {c}\" {s['median']:.4f} {lo:.4f} {hi:.4f}\n")  # K/N
    script = (f"set terminal pngcairo size 900,500 noenhanced\n"
              f"set output '{os.path.join(rdir, 'tps-ratio.png')}'\n"
              f"set title 'TPS against {reference} (median of per-repetition ratios, interval, or min-max when too few)'\n"
              "set style fill solid 0.6 border -1\nset boxwidth 0.6\nset xtics rotate by -35\n"
              "set grid ytics\nset yrange [0:*]\nset arrow from graph 0,first 1 to graph 1,first 1 "
              "nohead dt 2\n"
              f"plot '{dat}' using 0:2:xtic(1) with boxes notitle, '' using 0:2:3:4 with "
              "yerrorbars lc rgb 'black' pt 0 notitle\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return "tps-ratio.png"


def data_set_line(rdir):
    """The databases' sizes against shared_buffers, as bench.sh recorded them."""
    path = os.path.join(rdir, "bench", "data-set.tsv")
    if not os.path.exists(path):
        return "sizes not recorded"
    parts, sb = [], "?"
    with open(path) as f:
        for line in f:
            if line.strip():
                name, size, sb = line.rstrip("\n").split("\t")
                parts.append(f"{name} {int(size) / 2**20:.0f} MB")
    return f"{', '.join(parts)} against shared_buffers {sb}"


def meaning(rat, noise, cell_list, configs, reference=REFERENCE):
    """One line per cell and configuration: which effects are outside the noise."""
    twin_of = {ref: c for c, ref in noise.items()}
    twin = twin_of.get(reference)
    L, tested = [], 0
    for w, k in cell_list:
        for c in configs:
            if c == reference or c in noise or (w, k, c, "tps") not in rat:
                continue
            parts = []
            for m, label in RATIO_METRICS:
                s = rat.get((w, k, c, m))
                if not s:
                    continue
                tested += bool(s["ci95"])
                parts.append(f"{label} {ratio_cell(s)}: "
                             f"{verdict(s, rat.get((w, k, twin, m)) if twin else None)}")
            L.append(f"- {w}, CHECKPOINT {kdesc(k)}, {c} against {reference}: "
                     + "; ".join(parts) + ".")
    if tested:
        L.append(f"- {tested} intervals above: at 95% coverage each, a few of them can exclude 1.0 "
                 "by chance alone; read a single borderline one with care.")
    return L


def section(rdir, rel, rows, table, plots_on):
    """Markdown lines: the summary of ratios (for the top) and the details."""
    configs = list(table)
    noise = noise_pairs(table)
    reference = reference_of(table)
    summ = summarize(rows)
    rat = ratios(rows, noise, reference)
    cell_list = cells(rows)
    timed = timed_summary(rdir, rows, configs)
    plots = []
    if plots_on:
        if cell_list:
            plots.append(plot_ratios(rdir, rat, cell_list, configs, reference))
        for w, entries in timed.items():
            plots.append(plot_series(rdir, w, entries))

    top = [f"## Summary: each configuration against {reference}\n"]
    covs = sorted({round(100 * x["coverage"], 1) for x in rat.values() if x["coverage"]})
    top.append("Each cell (fixed work, and the timed runs' cell), the median of per-repetition "
               f"ratios (each against {reference} in the same "
               "repetition) with a distribution-free interval of that median in brackets (order "
               "statistics, at least 95% coverage"
               + (f"; here {', '.join(f'{c}%' for c in covs)}" if covs else "")
               + "; 5 repetitions or fewer: their min–max, no interval).  Below 1.0 is less: fewer "
               "TPS, lower latency, less WAL, fewer bytes, faster recovery.\n")
    top.append("| workload | CHECKPOINT | configuration | " +
               " | ".join(label for _, label in RATIO_METRICS) + " |")
    top.append("|---|---|---|" + "---|" * len(RATIO_METRICS))
    for w, k in cell_list:
        for c in configs:
            if c == reference or (w, k, c, "tps") not in rat:
                continue
            label = f"{c} (noise floor)" if c in noise else c
            top.append(f"| {w} | {kdesc(k)} | {label} | " +
                       " | ".join(ratio_cell(rat.get((w, k, c, m))) for m, _ in RATIO_METRICS) + " |")
    top.append("")
    nv = noise_verdicts(rat, noise, cell_list)
    off = [x for x in nv if not x[5]]
    if nv and not off:
        top.append(f"Noise floor: every interval of {', '.join(sorted(noise))} (identical to "
                   f"{', '.join(sorted(set(noise.values())))}) includes 1.0.\n")
    for w, k, c, m, s, _ in off:
        top.append(f"**Noise floor not met**: {c} against {noise[c]} on {w}, CHECKPOINT {kdesc(k)}, {m}: "
                   f"{ratio_cell(s)} excludes 1.0 although the two are identical: differences of "
                   "that size in this cell and metric are not evidence.\n")
    if not nv and noise:
        top.append("No noise-floor interval (too few repetitions, or no noise configuration ran).\n")

    L = ["## Throughput, latency and write volume, per cell\n"]
    if rows:
        r0 = rows[0]
        L.append("Fixed-work cells (K/N: N transactions after a warm-up and a checkpoint): a "
                 "CHECKPOINT issued after every K of them (the load runs in segments of K "
                 "transactions; each segment's checkpoint overlaps the next), the last one waited "
                 "for; or (K walMB, the size-triggered regime) none issued during the load: "
                 "max_wal_size MB, a fresh WAL segment before the warm-up's checkpoint, and the "
                 "server checkpoints by WAL volume (at 32 MB, each time a 16 MB segment fills), so "
                 "full-page images bring checkpoints sooner; its checkpoints counted, one "
                 "CHECKPOINT is then waited for, its time counted in TPS (a configuration whose "
                 "small WAL triggers no checkpoint leaves its pages to that one).  Then one more "
                 "segment (walMB: of the warm-up's size) and a kill -9: the restart's crash recovery time and the WAL it replayed.  "
                 "TPS counts the drivers' own time (without their start-up and connections, which "
                 "each segment repeats) plus any time the load waited for the previous "
                 "checkpoint; device bytes run from the warm-up's checkpoint to the last "
                 "checkpoint's end.  Timed cells (K timedSEC): SEC seconds with checkpoint_timeout "
                 "30s, TPS over the wall time, device bytes to the load's end after a sync (not the "
                 "shutdown's checkpoint), no crash recovery.  All: "
                 f"{r0['threads']} client threads; data set: "
                 f"{', '.join(sorted({r['data_set'] for r in rows}))} ({data_set_line(rdir)}; "
                 "the backend and bgwriter writes below show pages leaving shared_buffers "
                 "outside checkpoints; the guest's page cache holds the whole data set, so they "
                 "are written, never read back from the device, and with sysbench's default "
                 "distribution the hot rows fit in shared_buffers anyway).  WAL and full-page "
                 "images come from `pg_stat_wal`, device bytes from tornblk's counters; data+WAL "
                 "device bytes: what both devices wrote per transaction.  p99 rests on N/100 "
                 "transactions per run (sysbench's histogram buckets are about 2% wide).  "
                 "Recovery: the page cache is dropped before the restart, `recovery s` is redo's "
                 "own time from the server log.  A fixed K leaves out one feedback of real "
                 "servers: full-page images make the WAL grow faster, so checkpoints triggered by "
                 "max_wal_size come sooner and bring more full-page images; that understates the "
                 "cost of full_page_writes there; the walMB and timed cells have it.  Cells: "
                 "median (min–max) over repetitions.\n")
    for w, k in cell_list:
        L.append(f"### {w}, CHECKPOINT {kdesc(k)}\n")
        L.append("| configuration | reps | " + " | ".join(lbl for _, lbl, _ in FIXED_METRICS) + " |")
        L.append("|---|---|" + "---|" * len(FIXED_METRICS))
        for c in configs:
            s = summ.get((w, k, c))
            if not s:
                continue
            L.append(f"| {c} | {s['tps']['n']} | " +
                     " | ".join(cell(s.get(m), d) for m, _, d in FIXED_METRICS) + " |")
        L.append("")
    if "tps-ratio.png" in plots:
        L.append(f"![tps-ratio.png]({rel}/tps-ratio.png)\n")
    if timed:
        L.append("## TPS over time (timed runs, checkpoint_timeout = 30s)\n")
        L.append("The first repetition of each workload and configuration: per-second TPS with "
                 "the checkpoints shaded.  Variability: the variance of the per-second TPS after "
                 f"the first 5 seconds and its ratio against {reference} (as kdevops and the LSFMM "
                 "figures report it; it grows with the mean), and the coefficient of variation "
                 "(sd / mean), which does not; of that one run here, without an interval; over "
                 "all repetitions, with intervals, in the timed cells above.\n")
        for w, entries in timed.items():
            L.append(f"### {w}\n")
            L.append(f"| configuration | seconds | TPS | p99 ms | TPS variance | variance vs {reference} "
                     "| CV | checkpoints |")
            L.append("|---|---|---|---|---|---|---|---|")
            base_var = next((v for c, _, v, _ in entries if c == reference), None)
            for c, r, var, nck in entries:
                vr = f"{var / base_var:.2f}x" if var is not None and base_var else "n/a"
                L.append(f"| {c} | {fmt(num(r['seconds']), 0)} | {fmt(num(r['tps']), 1)} | "
                         f"{fmt(num(r['lat_p99_ms']), 1)} | {fmt(var, 1)} | {vr} | "
                         f"{fmt(num(r.get('tps_cv')), 3)} | {nck} |")
            L.append("")
            png = f"tps-{w.replace(':', '-')}.png"
            if png in plots:
                L.append(f"![{png}]({rel}/{png})\n")
    L.append("")
    top_meaning = meaning(rat, noise, cell_list, configs, reference)
    return top, L, {"meaning": top_meaning, "summary": [{"workload": w, "ckpt_every_of": k, "config": c, **s}
                                for (w, k, c), s in summ.items()],
                    "ratios": [{"workload": w, "ckpt_every_of": k, "config": c, "metric": m, **s}
                               for (w, k, c, m), s in rat.items()]}


def iobench_section(rdir):
    """Markdown lines for atomicw bench (iobench.sh): IOPS per device and mode,
    and each mode against plain O_DIRECT within a round."""
    path = os.path.join(rdir, "iobench", "iobench.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    L = ["## Page writes without PostgreSQL: plain O_DIRECT, RWF_ATOMIC, doublewrite\n"]
    L.append("`atomicw bench` on 16k-block XFS (`workloads/iobench.sh`): 16k page writes at random "
             "offsets in batches, an fsync after each batch, as a database flushes; plain O_DIRECT "
             "has no torn-write protection, RWF_ATOMIC is the kernel's, doublewrite writes each "
             "batch to a doublewrite area and fsyncs it first (InnoDB's way).  Modes interleave in "
             "rounds; ratios against plain are per round, their median with an order-statistic "
             "interval (at least 95% coverage).  "
             "*tornblk*: the lbs-atomic device (16k atomic unit); *virtio*: QEMU's plain virtio "
             "disk, which advertises no atomic writes.\n")
    L.append("| device | mode | rounds | IOPS | vs plain O_DIRECT |")
    L.append("|---|---|---|---|---|")
    by = {}
    for r in rows:
        by.setdefault((r["device"], r["round"]), {})[r["mode"]] = r
    devices = list(dict.fromkeys(r["device"] for r in rows))
    for d in devices:
        for m in ("plain", "atomic", "doublewrite"):
            mine = [r for r in rows if r["device"] == d and r["mode"] == m]
            if not mine:
                continue
            if any(r["iops"] == "unsupported" for r in mine):
                L.append(f"| {d} | {m} | - | refused: the device has no atomic writes | - |")
                continue
            iops = stats.summary([num(r["iops"]) for r in mine])
            rat = []
            for r in mine:
                p = by.get((d, r["round"]), {}).get("plain")
                if p and num(p["iops"]):
                    rat.append(num(r["iops"]) / num(p["iops"]))
            rs = stats.summary(rat) if m != "plain" else None
            L.append(f"| {d} | {m} | {iops['n']} | {cell(iops, 0)} | "
                     f"{ratio_cell(rs) if rs else '1 (reference)'} |")
    L.append("")
    return L
