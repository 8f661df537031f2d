"""The report's section on the writeback race's chances (race.sh's
race.csv): per variant of race.tsv, the pages changed while the device
captured them in each load, and each load's count against the eviction
baseline's in the same round (paired: one boot, interleaved), as medians
with distribution-free intervals (stats.py).

No third-party packages: the machines that run the report have only Python.
"""
import csv
import os

import stats

BASE = "evict"  # race.tsv's first variant: the crash loop's eviction cycles


def read_variants(tsv):
    """race.tsv's variants in table order: name -> what."""
    out = {}
    with open(tsv) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                raise SystemExit(f"{tsv}: a line of {len(fields)} fields, not 5: {line!r}")
            out[fields[0]] = fields[4]
    return out


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def per_variant(rows):
    """variant -> {changed, per10k, ratio, mixed: summaries; n; loads_with;
    mixed_loads, mixed_total; dropped: rounds without a baseline count}."""
    by_rep = {}
    for r in rows:
        by_rep.setdefault(r["rep"], {})[r["variant"]] = r
    out = {}
    for r in rows:
        d = out.setdefault(r["variant"], {"changed": [], "per10k": [], "ratio": [], "mixed": [],
                                          "dropped": 0})
        changed, dma = int(r["dma_pages_changed"]), int(r["dma_writes"])
        d["changed"].append(changed)
        if (r.get("dma_pieces_mixed") or "") != "":  # counted since tornblk has it
            d["mixed"].append(int(r["dma_pieces_mixed"]))
        d["per10k"].append(changed * 10000 / dma if dma else None)
        base = by_rep[r["rep"]].get(BASE)
        if base is not None and base is not r and int(base["dma_pages_changed"]):
            d["ratio"].append(changed / int(base["dma_pages_changed"]))
        elif r["variant"] != BASE:
            d["dropped"] += 1
    for d in out.values():
        d["n"] = len(d["changed"])
        d["loads_with"] = sum(1 for v in d["changed"] if v)
        d["mixed_loads"] = len(d["mixed"])
        d["mixed_total"] = sum(d["mixed"])
        for k in ("changed", "per10k", "ratio", "mixed"):
            d[k] = stats.summary(d[k])
    return out


def cell(s, digits=0):
    if not s:
        return "n/a"
    m = f"{s['median']:,.{digits}f}"
    if s["ci95"]:
        lo, hi = s["ci95"]
        return f"{m} [{lo:,.{digits}f}-{hi:,.{digits}f}]"
    return f"{m} (range {s['min']:,.{digits}f}-{s['max']:,.{digits}f}, too few loads for an interval)"


def race_section(rdir, tsv):
    """The section's Markdown lines ([] when there is no race.csv)."""
    path = os.path.join(rdir, "race", "race.csv")
    if not os.path.exists(path):
        return []
    rows = read_rows(path)
    if not rows:
        return []
    runs = {(r["config"], r["seconds"], r["dma_delay_us"]) for r in rows}
    if len(runs) > 1:
        raise SystemExit(f"{path}: loads of more than one run (config, seconds, DMA delay): "
                         f"{sorted(runs)}; their rounds cannot be paired")
    what = read_variants(tsv)
    pv = per_variant(rows)
    r0 = rows[0]
    secs = sorted({r["seconds"] for r in rows})
    L = ["## The writeback race's chances under PostgreSQL's own writes\n",
         f"`workloads/race.sh` (race.csv: {len(rows)} loads of {', '.join(secs)} s on {r0['config']}'s "
         f"storage, xfs_mount {r0['xfs_mount']}, DMA capture {r0['dma_delay_us']} us/page; no power "
         "cut). The device reads a write's pages one after another, as DMA does; each load counts "
         "the data device's pages that a writer changed after the device had read them and before "
         "it finished reading the write (tornblk's dma_pages_changed: the race's chances: the device "
         "holds a copy older than the page cache, which marks the page dirty again), and the 8k "
         "pieces (a PostgreSQL page) whose copy holds one page read before a change and another read "
         "after it (dma_pieces_mixed, against a snapshot of each piece taken when its first page is "
         "read): copies of no version the page ever had, the race's torn pages, whose checksum "
         "fails. The kernel's untorn buffered writeback (stable pages) keeps both at 0. A crash "
         "cycle shows damage only when a torn copy reaches the media and the cut loses the write "
         "that repairs it (the probe's crash cycles above). Variants (workloads/race.tsv) run "
         "interleaved, one round at a time; the ratio is each load's changed pages over the "
         "eviction baseline's in the same round. Medians with distribution-free 95% intervals, each "
         "on its own (no correction for comparing several variants with the baseline).\n",
         "| variant | loads | loads with a change | pages changed per load | per 10k writes captured "
         "| vs evict (same round) | 8k pieces mixed per load | what |",
         "|---|---|---|---|---|---|---|---|"]
    for v in [v for v in what if v in pv] + sorted(set(pv) - set(what)):
        d = pv[v]
        ratio = "1 (the baseline)" if v == BASE else cell(d["ratio"], 2)
        if d["dropped"]:
            ratio += f" ({d['dropped']} rounds without a baseline count left out)"
        mixed = "not counted" if not d["mixed_loads"] else f"{cell(d['mixed'])} ({d['mixed_loads']} loads)"
        L.append(f"| {v} | {d['n']} | {d['loads_with']} | {cell(d['changed'])} | {cell(d['per10k'], 1)} "
                 f"| {ratio} | {mixed} | {what.get(v, '(not in race.tsv now)')} |")
    L.append("")
    total = sum(d["loads_with"] for d in pv.values())
    if total == 0:
        L.append("No load of any variant changed a page while the device captured it: within these "
                 "loads PostgreSQL's writes did not reach the race.\n")
        return L
    raised = [v for v, d in pv.items() if v != BASE and d["ratio"] and d["ratio"]["ci95"]
              and d["ratio"]["ci95"][0] > 1]
    lowered = [v for v, d in pv.items() if v != BASE and d["ratio"] and d["ratio"]["ci95"]
               and d["ratio"]["ci95"][1] < 1]
    L.append(f"PostgreSQL's own writes reach the race's window: in {total} of {len(rows)} loads they "
             "changed pages the device had already read and was still reading the write of.")
    mloads = sum(d["mixed_loads"] for d in pv.values())
    mtotal = sum(d["mixed_total"] for d in pv.values())
    if mloads and not mtotal:
        L.append(f"In none of the {mloads} loads that counted them did the device copy an 8k piece "
                 "from two versions: every copy was one version of each PostgreSQL page (older or "
                 "newer than the page cache), so the race tore no page in these loads; within them, "
                 "stable pages protect against stale copies, which a later write repairs, not torn ones.")
    elif mloads:
        L.append(f"The device copied {mtotal} 8k pieces from two versions in the {mloads} loads that "
                 "counted them: torn PostgreSQL pages reached the device through the race itself, "
                 "with no power cut, on storage without stable pages. Each stays on the media until "
                 "the page's next write repairs it; a cut before that leaves a page whose checksum "
                 "fails. The kernel's untorn buffered writeback (stable pages) is needed for them.")
    L.append(f"Settings that raise the pages changed (the paired ratio's interval above 1): "
             f"{', '.join(raised) or 'none shown'}; that lower them (below 1): "
             f"{', '.join(lowered) or 'none shown'}.")
    base = pv.get(BASE, {}).get("mixed")
    if base and base["ci95"]:
        up = [v for v, d in pv.items() if v != BASE and d["mixed"] and d["mixed"]["ci95"]
              and d["mixed"]["ci95"][0] > base["ci95"][1]]
        down = [v for v, d in pv.items() if v != BASE and d["mixed"] and d["mixed"]["ci95"]
                and d["mixed"]["ci95"][1] < base["ci95"][0]]
        L.append(f"Settings whose torn copies per load (8k pieces mixed) lie above the baseline's, "
                 f"intervals apart: {', '.join(up) or 'none'}; below: {', '.join(down) or 'none'}.")
    L.append("")
    return L
