#!/usr/bin/env python3
"""Host unit test of the benchmark part of the report (report_bench.py, stats.py).

Crafted bench.csv rows in the format bench.sh writes: ratios are taken within
a repetition, the bootstrap interval covers the true ratio and excludes 1.0
when the effect is large, a noise configuration whose interval excludes 1.0
is called out, few repetitions get no interval, and an old bench.csv is
refused.
"""
import csv
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from checker import Checker  # noqa: E402
import report  # noqa: E402
import report_bench  # noqa: E402
import stats  # noqa: E402

def bench_columns():
    """The header bench.sh writes (one place: BENCH_COLUMNS in benchcore.sh)."""
    with open(os.path.join(os.path.dirname(HERE), "benchcore.sh")) as f:
        for line in f:
            if line.startswith('BENCH_COLUMNS="'):
                return line.strip()[len('BENCH_COLUMNS="'):-1].split(",")
    raise SystemExit("test_report_bench: no BENCH_COLUMNS= line in benchcore.sh")


COLUMNS = bench_columns()


def rows(reps, effect, twin_effect, rng):
    """Each repetition has its own machine speed (drift up to 2x); lbs-atomic
    runs `effect` times baseline's TPS, baseline-twin `twin_effect` times."""
    out = []
    for rep in range(1, reps + 1):
        speed = rng.uniform(0.5, 1.0)
        for c, f in (("baseline", 1.0), ("lbs-atomic", effect), ("baseline-twin", twin_effect)):
            r = {k: "0" for k in COLUMNS}
            tps = 200 * speed * f * rng.uniform(0.97, 1.03)
            r.update(config=c, mode="fixed", workload="oltp_write_only", rep=str(rep),
                     ckpt_every="1000", transactions="10000", tps=f"{tps:.2f}",
                     lat_p99_ms=f"{40 / speed / f:.2f}", wal_bytes_per_txn="2000",
                     data_dev_bytes_per_txn="9000", recovery_s="3", threads="4",
                     data_set="sysbench 4x100000", full_page_writes="on")
            out.append(r)
    return out


def write(path, rs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rs)


def main():
    check = Checker("test_report_bench")

    rng = random.Random(7)
    # The order-statistic interval of a median: [x(2), x(9)] with 97.85%
    # coverage for 10 values, [min, max] for 6, none for 5.
    ci = stats.median_ci([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])
    check(ci and ci[:2] == (2, 9) and abs(ci[2] - 0.978515625) < 1e-9, f"10 values: {ci}")
    check(stats.median_ci(range(6))[:2] == (0, 5), "6 values: not [min, max]")
    check(stats.median_ci([1.0, 2.0, 3.0, 4.0, 5.0]) is None, "5 values got a 95% interval")
    # Its coverage, simulated: at least 95% of intervals hold the true median.
    hits = sum(lo <= 0.0 <= hi for lo, hi, _ in
               (stats.median_ci([rng.gauss(0, 1) for _ in range(10)]) for _ in range(4000)))
    check(hits / 4000 > 0.965, f"simulated coverage {hits / 4000:.3f} is below 97.9% - noise")

    table = report.CONFIG_TABLE
    check(report_bench.noise_pairs(table) == {"baseline-twin": "baseline"},
          "configs.tsv's noise row does not name baseline as its reference")

    with tempfile.TemporaryDirectory() as d:
        # 10 repetitions, drift up to 2x between them: the paired ratio still
        # comes out near 1.3 with an interval that excludes 1.0; the twin's
        # interval includes 1.0.
        rs = rows(10, 1.3, 1.0, rng)
        top, lines, js = report_bench.section(d, ".", rs, table, False)
        rat = {(x["config"], x["metric"]): x for x in js["ratios"]}
        a = rat[("lbs-atomic", "tps")]
        check(abs(a["median"] - 1.3) < 0.05 and a["ci95"][0] > 1.1,
              f"lbs-atomic TPS ratio {a['median']:.3f} {a['ci95']} is not about 1.3 excluding 1.0")
        check(abs(rat[("lbs-atomic", "lat_p99_ms")]["median"] - 1 / 1.3) < 0.01,
              "the p99 ratio is not taken within the repetition")
        t = rat[("baseline-twin", "tps")]
        check(t["ci95"][0] <= 1.0 <= t["ci95"][1], f"twin interval {t['ci95']} excludes 1.0")
        text = "\n".join(top + lines)
        check("includes 1.0" in text and "Noise floor not met" not in text,
              "a twin within the noise is not reported as such")
        check("| oltp_write_only | every 1000 of 10000 transactions | lbs-atomic | 1.3" in text,
              "the summary table lacks lbs-atomic's row")
        m = " ".join(js["meaning"])
        check("TPS 1.3" in m and "outside the noise (beyond the twin's" in m
              and "WAL/txn 1.00x" in m and "within the noise" in m,
              f"the meaning does not separate effects outside the noise from those within: {m}")

        # A twin 15% faster than its identical reference: the floor is not met.
        rs = rows(10, 1.3, 1.15, rng)
        top, _, js = report_bench.section(d, ".", rs, table, False)
        check(any("Noise floor not met" in x and "baseline-twin" in x for x in top),
              "a twin 15% off its reference passed the noise floor")
        m = " ".join(js["meaning"])
        check("TPS 1.3" in m and "outside the noise" in m,
              "a 30% effect beyond a 15% twin was not called outside the noise")
        rs = rows(10, 1.1, 1.15, rng)
        _, _, js = report_bench.section(d, ".", rs, table, False)
        m = " ".join(js["meaning"])
        check("TPS 1.1" in m and "but not the twin's spread" in m,
              f"a 10% effect inside a 15% twin's spread was called outside the noise: {m}")

        # Two repetitions: the min–max, said to be no interval.
        rs = rows(2, 1.3, 1.0, rng)
        top, _, _ = report_bench.section(d, ".", rs, table, False)
        check(any("2 reps: no interval" in x for x in top), "2 repetitions were given an interval")
        rs = rows(5, 1.3, 1.0, rng)
        top, _, _ = report_bench.section(d, ".", rs, table, False)
        check(any("5 reps: no interval" in x for x in top), "5 repetitions were given a 95% interval")

        # atomicw bench rounds: doublewrite at about half of plain per round,
        # a virtio disk that refused RWF_ATOMIC.
        os.makedirs(os.path.join(d, "iobench"))
        with open(os.path.join(d, "iobench", "iobench.csv"), "w") as f:
            f.write("device,round,mode,block_size,writes,seconds,iops\n")
            for rnd in range(1, 11):
                speed = rng.uniform(0.5, 1.0)
                for m, fac in (("plain", 1.0), ("atomic", 0.98), ("doublewrite", 0.5)):
                    f.write(f"tornblk,{rnd},{m},16384,100,1,{1000 * speed * fac:.1f}\n")
            f.write("virtio,0,atomic,16384,0,0,unsupported\n")
            for rnd in range(1, 11):
                f.write(f"virtio,{rnd},plain,16384,100,1,800\nvirtio,{rnd},doublewrite,16384,100,1,400\n")
        io = "\n".join(report_bench.iobench_section(d))
        check("| tornblk | doublewrite | 10 |" in io and "0.50x [0.50–0.50]" in io,
              f"doublewrite is not half of plain within each round: {io}")
        check("| virtio | atomic | - | refused" in io, "the virtio disk's refusal is not shown")

        # A bench.csv of the old bench.sh (no mode column) is refused by name.
        old = os.path.join(d, "old", "bench.csv")
        os.makedirs(os.path.dirname(old))
        with open(old, "w") as f:
            f.write("kernel,config,workload,rep,tps\n6.12,baseline,oltp_write_only,1,100\n")
        try:
            report_bench.read_rows(old)
            check(False, "an old bench.csv was accepted")
        except SystemExit as e:
            check("older bench.sh" in str(e), f"old bench.csv refused without the reason: {e}")

    # Timed runs: a cell of their own per workload, repetitions paired by
    # number; the variability's ratio and the summed device bytes with it.
    trows = []
    for rep in range(1, 7):
        for c, cv, f in (("baseline", 0.40, 1.0), ("lbs-atomic", 0.10, 1.5)):
            r = {k: "NA" for k in COLUMNS}
            r.update(config=c, mode="timed", workload="oltp_write_only", rep=str(rep), ckpt_every="0",
                     transactions=str(1000 * rep), tps=f"{100 * f + rep:.2f}", tps_cv=f"{cv:.3f}",
                     data_dev_bytes_per_txn="8000", wal_dev_bytes_per_txn=str(int(4000 / f)))
            trows.append(r)
    trat = report_bench.ratios(trows, {}, "baseline")
    cv = trat.get(("oltp_write_only", "timed", "lbs-atomic", "tps_cv"))
    check(cv and cv["n"] == 6 and abs(cv["median"] - 0.25) < 1e-9 and cv["ci95"],
          f"the timed cell's variability ratio: {cv}")
    dev = trat.get(("oltp_write_only", "timed", "lbs-atomic", "dev_bytes_per_txn"))
    check(dev and abs(dev["median"] - (8000 + 4000 / 1.5) / 12000) < 1e-3,
          f"data+WAL device bytes per transaction: {dev}")
    check(report_bench.cells(rows(1, 1.0, 1.0, rng) + trows)[-1] == ("oltp_write_only", "timed"),
          "the timed cell is not listed after the fixed-work ones")
    check(report_bench.ckey({"mode": "timed", "workload": "w", "ckpt_every": "timed120"}) == ("w", "timed120")
          and report_bench.kdesc("timed120") == "by the timer (checkpoint_timeout 30s), timed runs of 120 s",
          "a timed cell is not named by its length")
    check(report_bench.kdesc("1000/3000") == "every 1000 of 3000 transactions"
          and report_bench.kdesc("wal32/3000") == "by WAL volume (max_wal_size 32 MB), 3000 transactions",
          "the regimes' cell names")
    fx = {"mode": "fixed", "workload": "pgbench-N", "ckpt_every": "wal32", "transactions": "6000"}
    check(report_bench.ckey(dict(fx, page_cache_mb="32")) == ("pgbench-N (page cache 32 MB)", "wal32/6000")
          and report_bench.ckey(dict(fx, page_cache_mb="0")) == ("pgbench-N", "wal32/6000")
          and report_bench.ckey(dict(fx, page_cache_mb="")) == ("pgbench-N", "wal32/6000")
          and report_bench.ckey(fx) == ("pgbench-N", "wal32/6000"),
          "runs with the page cache limited are not a cell of their own, or unlimited ones are")
    check.done()


if __name__ == "__main__":
    main()
