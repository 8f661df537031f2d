"""report_race: the race section's medians, paired ratios and statement,
from race.csv files written here."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import report_race  # noqa: E402

TSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "race.tsv")
HEAD = ("kernel,commit,config,xfs_mount,dma_delay_us,variant,rep,seconds,commits,writes,"
        "dma_writes,bytes_written,dma_pages_changed,dma_pieces_mixed\n")


def section(rows):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "race"))
        with open(os.path.join(d, "race", "race.csv"), "w") as f:
            f.write(HEAD)
            for v, rep, dma, changed, *mixed in rows:
                m = mixed[0] if mixed else ""  # (a row from before tornblk counted it)
                f.write(f"6.12.118,abc,lbs-atomic-off,nountorn,100,{v},{rep},10,50,{dma},{dma},1000,{changed},{m}\n")
        return "\n".join(report_race.race_section(d, TSV))


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


# No file, no section.
with tempfile.TemporaryDirectory() as d:
    check(report_race.race_section(d, TSV) == [], "no race.csv gives no section")

# hot doubles evict in each of 6 rounds: its ratio is 2 with an interval
# above 1 (6 values: [min, max] covers 96.9%), and it is named as raising.
rows = []
for rep in range(1, 7):
    rows.append(("evict", rep, 1000, 10 * rep))
    rows.append(("pareto", rep, 1000, 20 * rep))
out = section(rows)
check("| pareto | 6 | 6 | 70 [20-120] |" in out, "pareto's count per load: median 70, interval [20-120]\n" + out)
check("| 2.00 [2.00-2.00] | not counted |" in out, "hot's paired ratio is 2.00 [2.00-2.00], no mixed count\n" + out)
check("8k piece from two" not in out and "from two versions in the" not in out, "no statement on mixed pieces uncounted\n" + out)
check("raise the pages changed (the paired ratio's interval above 1): pareto;" in out, "pareto raises the count\n" + out)
check("in 12 of 12 loads they changed pages" in out, "every load changed a page\n" + out)
check("| evict | 6 | 6 | 35 [10-60] | 350.0 [100.0-600.0] | 1 (the baseline) |" in out,
      "evict's row: per 10k writes and the baseline mark\n" + out)

# No change anywhere: the statement says PostgreSQL did not reach it.
out = section([("evict", r, 1000, 0) for r in range(1, 4)])
check("did not reach the race" in out, "zero counts say so\n" + out)
check("too few loads for an interval" in out, "3 loads give a range, not an interval\n" + out)

# A paired ratio needs the baseline in the same round with a count.
out = section([("evict", 1, 1000, 0), ("pareto", 1, 1000, 5)])
check("| pareto | 1 | 1 | 5 (range 5-5, too few loads for an interval) | 50.0 (range 50.0-50.0, too few loads "
      "for an interval) | n/a (1 rounds without a baseline count left out) |" in out, "no ratio against a zero baseline\n" + out)
# Mixed pieces: counted in some loads (the older rows have none).
out = section([("evict", 1, 1000, 30), ("evict", 2, 1000, 30, 0), ("pareto", 2, 1000, 40, 0)])
check("| evict | 2 | 2 | 30 (range 30-30, too few loads for an interval) | 300.0 (range 300.0-300.0, too few "
      "loads for an interval) | 1 (the baseline) | 0 (range 0-0, too few loads for an interval) (1 loads) |" in out,
      "evict's mixed count over the one load that counted it\n" + out)
check("In none of the 2 loads that counted them did the device copy an 8k piece" in out, "no mixed piece: said\n" + out)
out = section([("evict", 1, 1000, 30, 2), ("pareto", 1, 1000, 40, 3)])
check("copied 5 8k pieces from two versions in the 2 loads that counted them" in out, "mixed pieces: said\n" + out)
# Loads of two runs (another configuration) are refused, not paired.
try:
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "race"))
        with open(os.path.join(d, "race", "race.csv"), "w") as f:
            f.write(HEAD)
            f.write("6.12.118,abc,lbs-atomic-off,nountorn,100,evict,1,10,50,9,9,1000,3,0\n")
            f.write("6.12.118,abc,lbs-atomic,-,100,evict,1,10,50,9,9,1000,3,0\n")
        report_race.race_section(d, TSV)
    check(False, "a race.csv of two runs was reported")
except SystemExit as e:
    check("more than one run" in str(e), f"refused for the reason: {e}")
# Torn copies per load against the baseline's, intervals apart.
rows = []
for rep in range(1, 7):
    rows += [("evict", rep, 1000, 30, rep % 2), ("pareto", rep, 1000, 30, 10 + rep), ("uniform", rep, 1000, 30, 1)]
out = section(rows)
check("lie above the baseline's, intervals apart: pareto; below: none." in out, "pareto's torn copies above\n" + out)
print("ok: report_race")
