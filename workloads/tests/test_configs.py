#!/usr/bin/env python3
"""Host unit test of configs.py: the role rules the report and crash.sh
--check share (configs.py judge), on crafted crash.csv files."""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from checker import Checker  # noqa: E402
import configs  # noqa: E402

COLUMNS = ["config", "cycle", "pages_torn", "meta_pages_torn", "verdict"]


def judge_cli(d, rows, *extra):
    path = os.path.join(d, "crash.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for i, (config, verdict, torn, meta) in enumerate(rows, 1):
            w.writerow({"config": config, "cycle": i, "pages_torn": torn,
                        "meta_pages_torn": meta, "verdict": verdict})
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), "configs.py"),
                        "judge", path, *extra], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    check = Checker("test_configs")

    check(configs.expect("baseline") == "clean", "baseline is not protected")
    check(configs.expect("unsafe") == "corrupt", "unsafe is not a control")
    check(configs.expect("lbs-fpw") == "none", "a variant has an expectation")
    check(configs.no_torn_data("lbs-atomic") and not configs.no_torn_data("baseline"),
          "the no-torn-file-data rule is not where full_page_writes is off")
    t = configs.tally([{"config": "x", "verdict": "clean", "pages_torn": "5", "meta_pages_torn": "2"},
                       {"config": "x", "verdict": "corrupt+lost", "pages_torn": "3",
                        "meta_pages_torn": ""},
                       {"config": "x", "verdict": "untested", "pages_torn": "0",
                        "meta_pages_torn": "0"}])
    check((t["cycles"], t["tested"], t["corrupt"], t["untested"], t["lost"]) == (3, 2, 1, 1, 1),
          f"tally counts: {t}")
    check((t["data_torn"], t["meta_torn"], t["data_torn_unknown"]) == (3, 2, 1),
          f"tally torn pieces: {t}")
    check(configs.judge("unsafe", {**t, "tested": 10, "corrupt": 8}) != [],
          "a control corrupt in 8 of 10 meets the report's 90%")
    check(configs.judge("unsafe", {**t, "tested": 10, "corrupt": 9}) == [],
          "a control corrupt in 9 of 10 misses the report's 90%")

    amcheck = next(c for c in configs.CHECKS if c["name"] == "amcheck")
    check(configs.check_found(amcheck, {"amcheck_rc": "2"}), "amcheck rc 2 is not damage")
    check(not configs.check_found(amcheck, {"amcheck_rc": "0", "amcheck_errors": "5"}),
          "an unmarked column counts as damage")
    check(not configs.check_found(amcheck, {"amcheck_rc": "NA"}), "NA counts as damage")
    check(not configs.check_found(amcheck, {"amcheck_rc": ""}), "an empty (older) cell counts")
    with tempfile.TemporaryDirectory() as d:
        rc, out = judge_cli(d, [("lbs-atomic", "clean", 0, 0)] * 2)
        check(rc == 0, f"two clean lbs-atomic cycles fail: {out}")
        rc, out = judge_cli(d, [("lbs-atomic", "clean", 0, 0), ("lbs-atomic", "corrupt", 0, 0)])
        check(rc == 1 and "1 corrupt cycles" in out, f"a corrupt protected cycle passes: {out}")
        rc, out = judge_cli(d, [("lbs-atomic", "clean", 4, 1)])
        check(rc == 1 and "3 torn pieces of file data" in out,
              f"torn file data without full-page writes passes: {out}")
        rc, out = judge_cli(d, [("baseline", "clean", 4, 1)])
        check(rc == 0, f"torn file data with full-page writes fails baseline: {out}")
        rc, out = judge_cli(d, [("baseline", "clean+lost", 0, 0)])
        check(rc == 1, f"a lost commit passes baseline: {out}")
        rc, out = judge_cli(d, [("baseline", "untested", 0, 0)])
        check(rc == 1, f"an untested cycle passes baseline: {out}")
        rc, out = judge_cli(d, [("unsafe", "clean", 0, 0)] * 5 + [("unsafe", "corrupt", 2, 0)])
        check(rc == 0, f"a control corrupt in 1 of 6 fails the test's rule: {out}")
        rc, out = judge_cli(d, [("unsafe", "clean", 0, 0)] * 6)
        check(rc == 1 and "not biting" in out, f"a control that never bites passes: {out}")
        rc, out = judge_cli(d, [("baseline-async", "clean", 0, 0)])
        check(rc == 1 and "ledger" in out, f"a ledger control without a lost commit passes: {out}")
        rc, out = judge_cli(d, [("baseline-async", "clean", 0, 0), ("baseline-async", "clean+lost", 0, 0)])
        check(rc == 0, f"a ledger control with a lost commit fails: {out}")
        rc, out = judge_cli(d, [("baseline-async", "untested+lost", 0, 0), ("baseline-async", "clean", 0, 0)])
        check(rc == 1 and "0 of 1" in out, f"an untested cycle's lost commits make a ledger control pass: {out}")
        rc, out = judge_cli(d, [("baseline-async", "corrupt+lost", 0, 0)])
        check(rc == 1 and "1 corrupt" in out, f"a corrupt ledger control passes: {out}")
        rc, out = judge_cli(d, [("baseline", "clean", 0, 0), ("unsafe", "clean", 0, 0)])
        check(rc != 0 and "2 configurations" in out, f"a mixed CSV is judged: {out}")

        # A table from before pg_bs (hostbench's results of an earlier
        # version) reads as Debian's 8k pages; one with a field too few
        # elsewhere is not read.
        old = os.path.join(d, "old.tsv")
        with open(old, "w") as f:
            f.write("m-fpw-on\t16384\t16384\t16384\ton\toff\ton\town\t-\tmixed\treference\t/m\n")
        t = configs.read_configs(old)["m-fpw-on"]
        check(t["pg_bs"] == "8192" and t["fpw"] == "on" and t["role"] == "reference",
              f"a table without pg_bs is misread: {t}")
        check(configs.read_configs()["pg16k-lbs-atomic"]["pg_bs"] == "16384", "pg16k-lbs-atomic's pg_bs")
        with open(old, "w") as f:
            f.write("x\t1\t2\n")
        try:
            configs.read_configs(old)
            check(False, "a table of 3 fields is read")
        except ValueError:
            pass

    check.done()


if __name__ == "__main__":
    main()
