#!/usr/bin/env python3
"""Host unit test of the report's first screen (report_dba.py): from crafted
bench.csv rows in the realistic regimes and crafted crash summaries, it
chooses a configuration only when it drops full-page images, its crash
evidence reached its number of cycles with nothing corrupt, and its TPS gain
lies beyond the noise floor; otherwise it says to keep full_page_writes on,
and it names the configurations short of evidence."""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from checker import Checker  # noqa: E402
import configs  # noqa: E402
import report_dba  # noqa: E402
from test_report_bench import COLUMNS  # noqa: E402


def rows(effects, reps=10, seed=5, timed="timed120"):
    """Each repetition has its own machine speed; configuration c runs
    effects[c] times baseline's TPS in both realistic regimes, or, for a
    tuple, (by WAL volume, timed, p99 latency factor)."""
    rng = random.Random(seed)
    out = []
    for rep in range(1, reps + 1):
        speed = rng.uniform(0.5, 1.0)
        for i, (k, mode, n) in enumerate((("wal32", "fixed", "6000"), (timed, "timed", "9000"))):
            for c, f in effects.items():
                f = f if isinstance(f, tuple) else (f, f, 1.0)
                r = {x: "0" for x in COLUMNS}
                r.update(config=c, mode=mode, workload="oltp_write_only", rep=str(rep),
                         ckpt_every=k, transactions=n,
                         tps=f"{200 * speed * f[i] * rng.uniform(0.97, 1.03):.2f}",
                         lat_p99_ms=f"{40 * f[2] * rng.uniform(0.97, 1.03):.2f}",
                         data_dev_bytes_per_txn="9000",
                         wal_dev_bytes_per_txn="3000", recovery_s="3", tps_cv="0.2")
                out.append(r)
    return out


def crash(**cycles):
    """A crash summary as report.summarize_crash gives it: name=(tested, corrupt)."""
    return {(c, "DMA capture 100 us/page"): {"tested": t, "corrupt": k, "meets_expectation": k == 0}
            for c, (t, k) in cycles.items()}


def text(lines):
    return "\n".join(lines)


def main():
    check = Checker("test_report_dba")
    table = configs.CONFIGS
    effects = {"baseline": 1.0, "baseline-twin": 1.0, "lbs-atomic": 1.5, "lbs8k-atomic": 1.4}
    ev = crash(baseline=(60, 0), **{"lbs-atomic": (60, 0), "lbs8k-atomic": (41, 0)})
    out = text(report_dba.answer(rows(effects), ev, table))
    check("**Choose lbs-atomic**" in out and "beyond the noise floor" in out,
          f"a safe configuration beyond the noise is not chosen:\n{out}")
    check("lbs8k-atomic (0/41 corrupt" in out and "60 wanted" in out,
          f"a configuration short of its evidence is not named as such:\n{out}")
    check("| lbs-atomic | off | 0/60 corrupt (<= " in out,
          f"the table's evidence cell:\n{out}")
    pg = [dict(r, workload="pgbench-N") for r in rows(effects, seed=9)]
    out = text(report_dba.answer(rows(effects) + pg, ev, table))
    check("lbs-atomic's TPS against baseline in the other loads: pgbench-N 1." in out,
          f"the chosen configuration's other loads are not given:\n{out}")

    ev_bad = crash(baseline=(60, 0), **{"lbs-atomic": (60, 1), "lbs8k-atomic": (60, 0)})
    out = text(report_dba.answer(rows(effects), ev_bad, table))
    check("**Choose lbs8k-atomic**" in out and "lbs-atomic (1/60 corrupt" in out,
          f"a configuration with a corrupt cycle is chosen, or the next safe one is not:\n{out}")

    flat = {"baseline": 1.0, "baseline-twin": 1.0, "lbs-atomic": 1.0, "lbs8k-atomic": 1.0}
    out = text(report_dba.answer(rows(flat), ev, table))
    check("**Keep full_page_writes on**" in out and "Choose" not in out,
          f"no gain beyond the noise, yet a configuration is chosen:\n{out}")

    noisy = {"baseline": 1.0, "baseline-twin": 1.35, "lbs-atomic": 1.3, "lbs8k-atomic": 1.0}
    out = text(report_dba.answer(rows(noisy), ev, table))
    check("**Keep full_page_writes on**" in out,
          f"a gain within the twin's spread counted as one:\n{out}")

    # A timed cell of another length left in the CSV is not mixed in: the
    # one with the most runs is shown and judged.
    old = [r for r in rows(effects, reps=2, seed=11, timed="timed60") if r["mode"] == "timed"]
    out = text(report_dba.answer(rows(effects) + old, ev, table))
    check("**Choose lbs-atomic**" in out and "its TPS is 1." in out and "runs of 120 s" in out
          and "runs of 60 s" not in out, f"cells of two run lengths mixed:\n{out}")
    # A gain by WAL volume with a loss when timed, or a worse p99, is no choice.
    mixed = {"baseline": 1.0, "baseline-twin": 1.0, "lbs-atomic": (1.5, 0.6, 1.0),
             "lbs8k-atomic": (1.4, 1.4, 3.0)}
    ev60 = crash(baseline=(60, 0), **{"lbs-atomic": (60, 0), "lbs8k-atomic": (60, 0)})
    out = text(report_dba.answer(rows(mixed), ev60, table))
    check("Choose" not in out and "lose beyond the noise floor: lbs-atomic (TPS 0." in out
          and "lbs8k-atomic (p99 latency " in out,
          f"a configuration that loses elsewhere is chosen, or its loss not named:\n{out}")
    # Nothing without full-page images qualifies, but wal_compression does.
    lz = {"baseline": 1.0, "baseline-twin": 1.0, "baseline-lz4": 1.2, "lbs-atomic": 1.0}
    out = text(report_dba.answer(rows(lz), ev, table))
    check("**Keep full_page_writes on**" in out and "baseline-lz4 (" in out and "gains 1.2" in out,
          f"the wal_compression alternative is not named:\n{out}")
    # Too few repetitions for an interval: say so, do not call it no gain.
    out = text(report_dba.answer(rows(effects, reps=4), ev, table))
    check("**Cannot tell yet**" in out, f"no interval, yet a verdict:\n{out}")
    out = text(report_dba.answer([r for r in rows(effects) if r["mode"] == "fixed" and False],
                                 ev, table))
    check("no answer from this run" in out, f"no realistic cell, yet an answer:\n{out}")
    check.done()


if __name__ == "__main__":
    main()
