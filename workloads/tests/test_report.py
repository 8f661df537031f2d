#!/usr/bin/env python3
"""Host unit test of report.py's crash summary: bounds and expectations.

Builds a small results directory with crash.csv files in the format that
crash.sh writes, runs report.py on it and checks the numbers it derives.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from checker import Checker  # noqa: E402
import report  # noqa: E402

COLUMNS = ("kernel,commit,config,xfs_bs,pawu,atomic_unit,full_page_writes,synchronous_commit,"
           "dma_delay_us,cycle,seed,cut_mode,unflushed_writes,cut_pos,cut_fraction,data_cached_writes,"
           "data_rewound_writes,wal_cached_writes,torn_writes,units_kept,units_lost,"
           "pages_in_flight,pages_partial,pages_torn,wal_pages_torn,mount,recovery,redo,"
           "log_page_errors,fsm_pages_zeroed,amcheck_rc,amcheck_errors,visibility_errors,checksum_bad,xfs_repair,"
           "commits_seen,commits_lost,seconds,verdict").split(",")


def row(config, cycle, verdict, pages=100, torn=0, dma=0, mode="fsync"):
    r = {c: "0" for c in COLUMNS}
    r.update(kernel="6.12.118", commit="abc", config=config, xfs_bs="4096", pawu="4096",
             atomic_unit="0", full_page_writes="off", synchronous_commit="on", cycle=str(cycle),
             seed=str(1000 + cycle), cut_mode=mode, cut_fraction="0.5", mount="ok",
             recovery="ok", redo="yes", xfs_repair="clean", commits_seen="500",
             pages_in_flight=str(pages), pages_torn=str(torn), seconds="60", verdict=verdict,
             dma_delay_us=str(dma))
    return r


def write(d, config, rows):
    os.makedirs(os.path.join(d, f"crash-{config}"))
    with open(os.path.join(d, f"crash-{config}", "crash.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)


def main():
    check = Checker("test_report")

    # Clopper-Pearson upper bounds against known values.
    check(abs(report.binom_upper(0, 60) - 0.0487) < 1e-3, "0/60 bound is not 4.87%")
    check(abs(report.binom_upper(0, 100) - 0.0295) < 1e-3, "0/100 bound is not 2.95%")
    check(report.binom_upper(5, 5) == 1.0, "5/5 bound is not 1")
    check(report.binom_upper(0, 0) is None, "0/0 has a bound")
    lo, hi = report.binom_interval(5, 10)
    check(abs(lo - 0.1871) < 1e-3 and abs(hi - 0.8129) < 1e-3,
          f"5/10's two-sided 95% interval is [{lo:.4f}, {hi:.4f}], not [0.1871, 0.8129]")
    check(report.binom_interval(10, 10)[1] == 1.0 and report.binom_interval(0, 10)[0] == 0.0,
          "an interval of 0/n or n/n does not reach its end")
    check(report.binom_interval(0, 0) is None, "0/0 has an interval")
    # What each configuration can fail through follows from its columns.
    check(report.exposure("lbs-atomic", 100)[0] == [], "lbs-atomic can fail through something")
    can = report.exposure("lbs-atomic-off", 100)[0]
    check(len(can) == 1 and "DMA race" in can[0], f"lbs-atomic-off (the probe): {can}")
    check(report.exposure("lbs-atomic-off", 0)[0] == [], "the DMA race without DMA capture")
    can = report.exposure("lbs-atomic-wb-off", 100)[0]
    check(any("tearing a page" in x for x in can) and any("metadata" in x for x in can),
          f"lbs-atomic-wb-off (the switch's control): {can}")
    can, cannot = report.exposure("lbs-atomic-wb-onedev", 100)
    check(can == [] and any("WAL page" in x and "this filesystem" in x for x in cannot),
          f"lbs-atomic-wb-onedev (pg_wal on the untorn filesystem): {can} / {cannot}")
    can = report.exposure("baseline-async", 100)[0]
    check(any("acknowledged commits" in x for x in can), f"baseline-async (synchronous_commit off): {can}")
    # The ledger's control: its rate is of lost commits; the WAL's tears per cycle.
    s = {"tested": 10, "lost": 9, "lost_tested": 9, "lost_ci95": report.binom_interval(9, 10), "wal_cycles": 10,
         "wal_torn_cycles": 6, "wal_pages_torn": 8}
    check(report.lost_cell("baseline-async", s).startswith("9/10 (55.5-99.7%)"),
          f"the ledger control's lost cell: {report.lost_cell('baseline-async', s)}")
    check(report.lost_cell("baseline", s) == "9", f"a protected lost cell: {report.lost_cell('baseline', s)}")
    check(report.wal_cell(s) == "8 (6 of 10)", f"WAL cell: {report.wal_cell(s)}")
    check(report.wal_cell(dict(s, wal_cycles=0)) == "-", "a WAL cell without a WAL device")
    race = report.race_lines({("lbs-atomic-off", "DMA capture 100 us/page"):
                              {"dma_cycles": 4, "dma_changed_cycles": 1, "dma_pages_changed": 7},
                              ("lbs-atomic", "DMA capture 100 us/page"): {"dma_cycles": 0}})
    check(len(race) == 3 and "lbs-atomic-off (DMA capture 100 us/page): 7 pages in 1 of 4 cycles." in race[1],
          f"the race's chances: {race}")
    race = report.race_lines({("lbs-atomic-off", "DMA capture 100 us/page"):
                              {"dma_cycles": 4, "dma_changed_cycles": 1, "dma_pages_changed": 7,
                               "dma_mixed_cycles": 2, "dma_pieces_mixed": 0}})
    check("7 pages in 1 of 4 cycles; 8k pieces copied from two versions (torn by the race): 0 in the 2 "
          "cycles that counted them." in race[1], f"the race's mixed pieces: {race}")
    race = report.race_lines({("lbs-atomic-off-race", "DMA capture 100 us/page"):
                              {"dma_cycles": 3, "dma_changed_cycles": 3, "dma_pages_changed": 90,
                               "dma_mixed_cycles": 3, "dma_pieces_mixed": 9, "tested": 3, "corrupt": 3,
                               "rate_ci95": report.binom_interval(3, 3), "recovery_failed": 2}})
    check(any("lbs-atomic-off-race (DMA capture 100 us/page) cut each cycle right after the device copied" in x
              and "3/3 (29.2-100.0%) of its tested cycles corrupt (2 of them failed crash recovery)" in x
              for x in race), f"the race cut's outcome: {race}")

    with tempfile.TemporaryDirectory() as d:
        # 60 clean cycles with DMA capture, 2 corrupt ones copied at submission:
        # two rows, never pooled into 2 of 62.
        write(d, "lbs-atomic", [row("lbs-atomic", i, "clean", dma=100) for i in range(1, 61)] +
              [row("lbs-atomic", i, "corrupt") for i in range(61, 63)])
        write(d, "baseline", [row("baseline", 1, "clean"), row("baseline", 2, "untested")])
        write(d, "unsafe", [row("unsafe", i, "corrupt", torn=5) for i in range(1, 28)] +
              [row("unsafe", i, "clean") for i in range(28, 31)])
        # Cut kinds: cycles 1..30 of lbs-only cycle through the modes crash.sh writes.
        modes = ("fsync", "evict", "timeout-nowal", "fsync-end", "evict-nowal", "fsync-end-nowal")
        write(d, "lbs-only", [row("lbs-only", i, "corrupt" if i <= 20 else "clean", torn=3,
                                  mode=modes[i % len(modes)]) for i in range(1, 31)])
        # A superseded run: shown on its own, never pooled into lbs-atomic-wb.
        sup = os.path.join(d, "superseded", "crash-lbs-atomic-wb-before-fix")
        os.makedirs(sup)
        with open(os.path.join(sup, "crash.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows([row("lbs-atomic-wb", 1, "corrupt", torn=4), row("lbs-atomic-wb", 2, "clean")])
        with open(os.path.join(sup, "NOTE.md"), "w") as f:
            f.write("Before the fix:\ntorn metadata.\n\nMore detail.\n")
        meta = {"started": "s", "finished": "f", "mode": "evidence", "command": "c",
                "repo_commit": "abc", "host_cpus": 2}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)
        md = os.path.join(d, "REPORT.md")
        script = os.path.join(os.path.dirname(HERE), "report.py")
        env = {**os.environ, "LBS_REPORT_NO_PLOTS": "1"}
        # Without boots.jsonl nothing says what ran: no report.
        r = subprocess.run([sys.executable, script, d, md], env=env, capture_output=True,
                           text=True)
        check(r.returncode != 0 and "boots.jsonl" in r.stderr,
              "a report was written without boots.jsonl")
        with open(os.path.join(d, "boots.jsonl"), "w") as f:
            for i, series in enumerate(("s1", "s1", "s2")):
                f.write(json.dumps({"name": f"crash-x{i}", "command": ["crash.sh", str(i)],
                                    "verdict": "PASS", "kernel_release": "r",
                                    "kernel_config_hash": "h", "patch_series_hash": series,
                                    "accel": "tcg", "cpus": 2, "guest_cpus_online": "2",
                                    "mem_mb": 3072, "repo_commit": "abc"}) + "\n")
        subprocess.run([sys.executable, script, d, md], check=True, env=env)
        with open(os.path.join(d, "crash.json")) as f:
            groups = json.load(f)["summary"]
        copied = [g for g in groups if g["config"] == "lbs-atomic"
                  and g["device_model"] == "copy at submission"]
        s = {g["config"]: g for g in groups if g not in copied}
        text = open(md).read()
    check("lbs-atomic-wb (copy at submission): 2 cycles, 1 corrupt, 0 untested, 4 8k pages torn "
          "at the cuts.  Before the fix: torn metadata." in text and "More detail" not in text,
          "the superseded run is not listed with its note")
    check("lbs-atomic-wb" not in s, "the superseded rows were pooled into the current ones")
    check("- crash-x2 (1 boot): `crash.sh 2`: PASS (kernel / patch series: r / s2)" in text,
          "a command is not listed with the kernel release and patch series it ran on")
    check(s["lbs-atomic"]["meets_expectation"], "60 clean cycles do not meet the protected rule")
    check(abs(s["lbs-atomic"]["rate_upper95"] - 0.0487) < 1e-3, "lbs-atomic bound wrong")
    check("page_rate_upper95" not in s["lbs-atomic"] and "per page in flight" not in text,
          "a rate per page (pages of one cut are not independent trials) is still given")
    ci = s["lbs-atomic"]["rate_ci95"]
    check(ci[0] == 0.0 and abs(ci[1] - report.binom_upper(0, 60, 0.975)) < 1e-12,
          f"lbs-atomic's two-sided interval {ci} is not [0, the 97.5% upper bound]")
    check(s["lbs-atomic"]["device_model"] == "DMA capture 100 us/page",
          "the DMA rows are not named by their model")
    check(len(copied) == 1 and copied[0]["corrupt"] == 2 and copied[0]["cycles"] == 2
          and not copied[0]["meets_expectation"],
          "rows copied at submission were pooled with the DMA rows")
    check("| lbs-atomic | DMA capture 100 us/page | 60 |" in text
          and "| lbs-atomic | copy at submission | 2 |" in text,
          "REPORT.md does not give each device model its own row")
    check(not s["baseline"]["meets_expectation"], "an untested cycle passed a protected config")
    check(s["unsafe"]["meets_expectation"], "27 of 30 corrupt does not meet the 90% control rule")
    check(not s["lbs-only"]["meets_expectation"], "20 of 30 corrupt met the 90% control rule")
    check("lbs-only (copy at submission): 20 of 30 tested cycles corrupt — fewer than the 90% a control must reach" in text,
          "a control corrupt in 20 of 30 cycles is not said to miss the 90% rule")
    check("tested cycles corrupt — the loop bites: without full-page images 8k pages tear in 4k "
          "units.  Clean: cycle 28 (seed 1028, abc): cut after write 0 of 0 (fsync), 100 8k pieces "
          "in flight, 0 torn; cycle 29" in text,
          "a control's clean cycles are not named with what was torn at their cuts")
    check("cycle 25 (seed 1025, abc)" in text and "cycle 26 " not in text
          and "; and 5 more in crash.csv." in text,
          "more than five clean cycles of a control are not cut short")
    g = report.clean_words("unsafe", [{"cycle": "7", "seed": "1007", "commit": "c", "cut_mode": "evict",
                             "cut_pos": "3", "unflushed_writes": "200", "pages_in_flight": "3",
                             "pages_torn": "1", "meta_pages_torn": ""}])
    check(g == "  Clean: cycle 7 (seed 1007, c): cut after write 3 of 200 (evict), 3 8k pieces in "
          "flight, 1 torn, not told apart from XFS's writes.", f"clean words read {g!r}")
    g = report.clean_words("lbs-atomic-off-race", [{"cycle": "11", "seed": "1011", "commit": "c",
                             "cut_mode": "race", "cut_pos": "0", "unflushed_writes": "0",
                             "pages_in_flight": "0", "pages_torn": "0", "meta_pages_torn": "0",
                             "race_piece": "data/base/16384/16400_fsm@2+2"}])
    check(g.endswith(", the torn copy in data/base/16384/16400_fsm@2+2."), f"a race cycle's torn copy: {g!r}")
    check("Clean:" not in text.split("- lbs-atomic")[1].split("\n")[0],
          "a protected configuration's clean cycles are listed as if explaining a control")
    check("0/60 (<= 4.9%)" in text, "REPORT.md does not show '0/60 (<= 4.9%)'")
    check("pool boots of 2 different kernel builds" in text,
          "REPORT.md does not say that the boots ran two patch series")
    check("| 2 | r | h | s1 |" in text and "| 1 | r | h | s2 |" in text,
          "REPORT.md does not count the boots of each build")
    check([report.cut_where(m) for m in modes] ==
          [report.CUT_WHERE[i] for i in (0, 2, 0, 1, 2, 1)],
          "cut modes are not sorted into checkpoint writes, before fsync and eviction")
    check([report.cut_where(m) for m in ("race", "race-none")] == [report.CUT_WHERE[3], report.CUT_WHERE[2]],
          "race cuts: right after a copy from two versions, or (none came) among eviction writes")
    # Torn pieces told apart (meta_pages_torn: XFS's own writes); rows from
    # before the split have no such column.
    def split_rows(config, pairs):
        out = []
        for i, (torn, meta) in enumerate(pairs):
            r = row(config, i + 1, "clean", torn=torn)
            r["meta_pages_torn"] = "" if meta is None else str(meta)
            out.append(r)
        return out
    sp = report.summarize_crash(split_rows("lbs-atomic", [(7, None), (5, 5), (0, 0)]))
    g = sp[("lbs-atomic", "copy at submission")]
    check(g["meets_expectation"] and g["data_torn_unknown"] == 1 and g["meta_torn"] == 5
          and g["data_torn"] == 0, "torn pieces all in XFS's writes failed lbs-atomic")
    check(report.split_cell(g) == "0 (1 cycle unknown)", f"split cell reads {report.split_cell(g)!r}")
    check(report.split_words(g) == " (5 in XFS's log and metadata writes, 0 in file data; "
          "not told apart in 1 cycle from before)", f"split words read {report.split_words(g)!r}")
    check(report.met_cell("lbs-atomic", g) == "yes (file data unknown in 1 cycle)",
          f"met cell reads {report.met_cell('lbs-atomic', g)!r}")
    g = report.summarize_crash(split_rows("lbs-atomic", [(9, 6)]))[("lbs-atomic", "copy at submission")]
    check(not g["meets_expectation"] and g["data_torn"] == 3,
          "3 torn pieces of file data met lbs-atomic's expectation")
    g = report.summarize_crash(split_rows("baseline", [(9, 6)]))[("baseline", "copy at submission")]
    check(g["meets_expectation"], "torn file data failed baseline, whose full-page writes repair it")
    g = report.summarize_crash(split_rows("lbs-atomic", [(4, None)]))[("lbs-atomic", "copy at submission")]
    check(report.split_cell(g) == "0 (1 cycle unknown)",
          "a row without meta_pages_torn that tore was counted as told apart")
    g = report.summarize_crash(split_rows("lbs-atomic", [(0, None)]))[("lbs-atomic", "copy at submission")]
    check(report.split_cell(g) == "0" and report.split_words(g) == "" and report.met_cell("lbs-atomic", g) == "yes",
          "a row without meta_pages_torn where nothing tore was not known clean")
    try:
        report.summarize_crash(split_rows("lbs-atomic", [(2, 3)]))
        check(False, "more torn metadata pieces than torn pieces were accepted")
    except ValueError:
        pass
    try:
        report.cut_where("checkpoint")
        check(False, "an unknown cut_mode was sorted somewhere")
    except ValueError:
        check(True, "")
    where = s["lbs-only"]["where"]
    check(sum(w[0] for w in where.values()) == 30 and where["eviction writes"][0] == 10
          and where["eviction writes"][1] == 7,
          f"lbs-only's cuts by kind are wrong: {where}")
    check("| lbs-only | copy at submission | 7/10, 1000 | 6/10, 1000 | 7/10, 1000 |" in text,
          "REPORT.md has no row of where lbs-only's cuts fell")
    # Autovacuum during the loads: counted from the rows, older rows off.
    av = [dict(row("baseline", i, "clean"), autovacuum="off") for i in range(1, 3)]
    av += [dict(row("baseline", i, v), autovacuum="on", autovacuums=n)
           for i, (v, n) in enumerate([("clean", "3"), ("corrupt", "5"), ("untested", "9"),
                                       ("clean", "1")], 3)]
    text = "".join(report.autovacuum_lines(av))
    check("on in 3 of 5 tested cycles" in text and "median 3" in text,
          f"the autovacuum line is wrong: {text}")
    # A probe's finding in words, against its configuration with the
    # protection on.
    on = {("lbs-atomic", "m"): {"corrupt": 0, "tested": 60}}
    hit = report.probe_finding("lbs-atomic-off", {"corrupt": 1, "tested": 50}, on)
    miss = report.probe_finding("lbs-atomic-off", {"corrupt": 0, "tested": 50}, on)
    check("Finding: PostgreSQL reached this hazard" in hit and "0 of 60" in hit
          and "did not reach" in miss and "Finding" not in miss,
          f"the probe's finding: {hit!r} / {miss!r}")
    # The QEMU each boot ran on, in the table of builds: boots that did not
    # record it are not pooled with boots that did.
    lines = report.boot_lines([
        {"name": "a", "command": ["x"], "qemu_version": "QEMU emulator version 10.0.2 (Debian 1:10.0.2)",
         "cpu_model": "Nehalem"},
        {"name": "b", "command": ["x"]}])
    check(any("| 10.0.2 | Nehalem |" in x for x in lines)
          and any("| not recorded | not recorded |" in x for x in lines)
          and any("pool boots of 2 different" in x for x in lines),
          f"the builds table, the QEMU version and the CPU model: {lines[:5]}")
    check.done()


if __name__ == "__main__":
    main()
