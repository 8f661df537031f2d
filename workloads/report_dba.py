"""The report's first screen: the answer for a DBA who runs PostgreSQL with
its default 8k pages.  Which configuration to choose, and why, from the
benchmark's realistic checkpoint regimes (by WAL volume, and by the timer)
and the crash evidence, with what an emulated machine can and cannot say.

Every figure comes from bench.csv and the crash summary, through the ratio
and noise rules of report_bench.py: nothing here is typed in.  The rule for
a choice is answer()'s; without one the answer is to keep full_page_writes
on (or that too few repetitions ran to tell).
"""
import configs
import report_bench as rb
import stats

LOAD = "oltp_write_only"  # the load every configuration runs in every regime (--medium)
# Roles a DBA can choose between (roles.tsv): not the controls, probes or noise.
CHOOSABLE = ("reference", "protected", "protected-untorn", "variant")


# The first screen's columns: (regime, metric, label); a regime's cell is
# the one pick_cells() chooses.
REGIME = {"wal": "by WAL volume", "timed": "timed"}
COLUMNS = [("wal", "tps", "TPS by WAL volume"), ("timed", "tps", "TPS timed"),
           ("timed", "tps_cv", "TPS variability timed"), ("timed", "lat_p99_ms", "p99 timed"),
           ("wal", "dev_bytes_per_txn", "data+WAL device bytes/txn"),
           ("wal", "recovery_s", "redo time")]


def regime_desc(k):
    """'wal32/6000' -> 'max_wal_size 32 MB, 6000 transactions'; 'timed60' ->
    'checkpoint_timeout 30s, runs of 60 s'."""
    if k.startswith("timed"):
        return "checkpoint_timeout 30s" + (f", runs of {k[5:]} s" if k[5:] else "")
    every, n = k.split("/")
    return f"max_wal_size {every[3:]} MB, {n} transactions"


def realistic(k):
    """A realistic regime's cell: by WAL volume (walMB/N) or by the timer."""
    return k.startswith("wal") or k.startswith("timed")


def regime_of(k):
    """REGIME's key of a realistic cell's K."""
    return "wal" if k.startswith("wal") else "timed"


def evidence(c, crash, table):
    """The crash evidence of c over its device models: corrupt and tested
    cycles, the one-sided 95% upper bound of the corrupt rate, its role's
    number of cycles (roles.tsv) and whether every rule held; None without
    crash cycles."""
    groups = [s for (c2, _), s in crash.items() if c2 == c]
    if not groups:
        return None
    tested = sum(s["tested"] for s in groups)
    corrupt = sum(s["corrupt"] for s in groups)
    return {"corrupt": corrupt, "tested": tested,
            "upper": stats.binom_upper(corrupt, tested) if tested else None,
            "target": int(configs.ROLES[table[c]["role"]]["evidence"]),
            "met": all(s["meets_expectation"] for s in groups)}


def evidence_cell(e):
    if not e or not e["tested"]:
        return "none"
    upper = f"{100 * e['upper']:.1f}%"
    short = "" if e["tested"] >= e["target"] else f"; {e['target']} wanted"
    return (f"{e['corrupt']}/{e['tested']} corrupt (<= {upper}){short}"
            + ("" if e["met"] else ", **rule not met**"))


def beyond(s, twin):
    """Whether a ratio's interval lies beyond the noise floor (the twin's
    spread, report_bench.verdict), and on which side: 1 above, -1 below, 0
    within or without an interval."""
    if not s or not s["ci95"] or not rb.verdict(s, twin).startswith("outside the noise"):
        return 0
    return 1 if s["ci95"][0] > 1.0 else -1


def pick_cells(rows, cells):
    """Per regime (REGIME), the one cell the screen shows and judges: the one
    with the most oltp_write_only runs (another run length or amount of work
    is another cell, never mixed in)."""
    n = {}
    for r in rows:
        k = rb.ckey(r)
        if k[0] == LOAD and k[1] in cells:
            n[k[1]] = n.get(k[1], 0) + 1
    return {g: max((k for k in cells if regime_of(k) == g), key=lambda k: n.get(k, 0), default=None)
            for g in REGIME}


def answer(rows, crash, table):
    """Markdown lines for the top of the report.  The rule: a configuration
    without full-page images is chosen only if its crash evidence reached its
    role's number of cycles with none corrupt, its TPS gain lies beyond the
    noise floor in the regime by WAL volume (the primary comparison; timed
    alone where that regime did not run), and in no regime shown is its TPS
    lower or its p99 latency higher beyond the noise floor."""
    noise = rb.noise_pairs(table)
    ref = rb.reference_of(table)
    twin = next((c for c, r in noise.items() if r == ref), None)
    rat = rb.ratios(rows, noise, ref)
    cells = [k for w, k in rb.cells(rows) if w == LOAD and realistic(k)]
    L = ["## The answer for PostgreSQL with 8k pages\n"]
    if not cells:
        return L + [f"No {LOAD} runs in a realistic checkpoint regime (by WAL volume or by the "
                    "timer) in these results (`workloads/run --medium` has them): no answer from "
                    "this run.\n"]
    present = {r["config"] for r in rows}
    cands = [c for c, t in table.items() if c in present and t["pg_bs"] == "8192"
             and t["role"] in CHOOSABLE]
    kind = pick_cells(rows, cells)
    shown = [k for k in kind.values() if k]
    cols = [(kind[g], m, label) for g, m, label in COLUMNS if kind[g]]
    cols = [x for x in cols if any(rat.get((LOAD, x[0], c, x[1])) for c in cands)]
    L.append(f"{LOAD}, each configuration against {ref} in the same repetition (median ratio "
             "[95% interval]; below 1.0 is less): "
             + "; ".join(f"*{REGIME[g]}*: {regime_desc(k)}" for g, k in kind.items() if k)
             + ".  Crash cycles: corrupt of tested, with the one-sided 95% upper bound of the "
             "rate per cycle, pooled over all their boots (the kernel builds they ran on are in "
             "the table of builds under *What was compared*).  Redo time: the crash recovery of "
             "a short segment after a checkpoint, on a RAM device where reading a page costs "
             "nothing.\n")
    L.append("| configuration | full-page images | crash evidence | "
             + " | ".join(x[2] for x in cols) + " |")
    L.append("|" + "---|" * (3 + len(cols)))
    ev = {c: evidence(c, crash, table) for c in cands}
    for c in cands:
        vals = ["1" if c == ref else rb.ratio_cell(rat.get((LOAD, k, c, m))) for k, m, _ in cols]
        L.append(f"| {c} | {table[c]['fpw']} | {evidence_cell(ev[c])} | " + " | ".join(vals) + " |")
    L.append("")

    def r(c, k, m):
        return rat.get((LOAD, k, c, m))

    def t(k, m):
        return rat.get((LOAD, k, twin, m)) if twin else None

    primary = kind["wal"] or kind["timed"]

    def loses(c):
        return [f"{'TPS' if m == 'tps' else 'p99 latency'} {rb.ratio_cell(r(c, k, m))} {REGIME[regime_of(k)]}"
                for k in shown for m, bad in (("tps", -1), ("lat_p99_ms", 1))
                if beyond(r(c, k, m), t(k, m)) == bad]

    safe = [c for c in cands if table[c]["fpw"] == "off" and ev[c] and ev[c]["met"]
            and ev[c]["tested"] >= ev[c]["target"] and ev[c]["corrupt"] == 0]
    unclear = [c for c in safe if not (r(c, primary, "tps") or {}).get("ci95")]
    best = sorted((c for c in safe if beyond(r(c, primary, "tps"), t(primary, "tps")) == 1
                   and not loses(c)),
                  key=lambda c: -min(r(c, k, "tps")["ci95"][0] for k in shown
                                     if r(c, k, "tps") and r(c, k, "tps")["ci95"]))
    short = [c for c in cands if table[c]["fpw"] == "off" and c not in safe]
    if best:
        c, e = best[0], ev[best[0]]
        regimes = " and ".join(f"{rb.ratio_cell(r(c, k, 'tps'))} {REGIME[regime_of(k)]}"
                               for k in shown if r(c, k, "tps"))
        L.append(f"**Choose {c}** ({table[c]['what']}): its TPS is {regimes} of {ref}'s, beyond "
                 "the noise floor " + (f"({twin} against {ref}) " if twin else "(no twin ran) ")
                 + f"{REGIME[regime_of(primary)]}, with no TPS or p99 loss beyond it in either "
                 f"regime; {e['corrupt']} of its {e['tested']} crash cycles were corrupt (95% upper "
                 f"bound {100 * e['upper']:.1f}% per cycle)."
                 + (f"  Also meeting this rule, ranked by their lowest TPS interval: "
                    f"{', '.join(best[1:])}." if best[1:] else "") + "\n")
        other = [f"{w} {rb.ratio_cell(rat.get((w, k, c, 'tps')))} {REGIME[regime_of(k)]}"
                 for w, k in rb.cells(rows) if w != LOAD and realistic(k) and rat.get((w, k, c, "tps"))]
        if other:
            L.append(f"{c}'s TPS against {ref} in the other loads: " + "; ".join(other) + ".\n")
    elif unclear:
        L.append(f"**Cannot tell yet**: {', '.join(unclear)} met the crash-evidence rule, but too few "
                 f"repetitions ran for an interval of their TPS against {ref}.\n")
    else:
        lz4 = next((c for c in cands if table[c]["walcomp"] != "off" and table[c]["fpw"] == "on"
                    and beyond(r(c, primary, "tps"), t(primary, "tps")) == 1 and not loses(c)), None)
        L.append(f"**Keep full_page_writes on**: no configuration without full-page images both "
                 "reached its crash-evidence target with no corrupt cycle and gained TPS beyond "
                 "the noise floor without a loss elsewhere here"
                 + (f"; {lz4} ({table[lz4]['what']}) gains "
                    f"{rb.ratio_cell(r(lz4, primary, 'tps'))} {REGIME[regime_of(primary)]}"
                    if lz4 else f"; {ref} as it is") + ".\n")
    losers = [f"{c} ({'; '.join(loses(c))})" for c in safe if loses(c)]
    if losers:
        L.append("Met the crash-evidence rule but lose beyond the noise floor: "
                 + "; ".join(losers) + ".\n")
    if short:
        L.append("Not chosen for want of evidence: "
                 + "; ".join(f"{c} ({evidence_cell(ev[c])})" for c in short) + ".\n")
    L.append("What these numbers are: ratios measured side by side in one guest boot per "
             "repetition, on QEMU without KVM (TCG: the CPU is the bottleneck, a few hundred TPS) "
             "and on a RAM device (tornblk), so they weigh CPU work (WAL records, full-page images, "
             "checksums) far more than a real drive would, count device bytes, not device time, "
             "and reads cost nothing (the page-cache cell below shows how many bytes 16k blocks "
             "read for 8k pages).  The crash evidence holds for tornblk's model of a power cut "
             "(below), not for a given drive: on your server `atomicw advise` reads the kernel's "
             "promises for your filesystem and device and says whether the page size is kept "
             "whole.\n")
    return L
