#!/usr/bin/env python3
"""The one Python reader of configs.tsv and roles.tsv (configs.sh is its
shell twin), and the rule each role's crash cycles are judged by, used by
both the report and crash.sh --check (in the guest):

    configs.py judge CRASH_CSV

prints one summary line of the CSV's cycles and exits 1 when they break
their configuration's rule (a test's: a control must show what it exists
to show in at least one cycle).
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# (WL_CONFIGS_TSV names another table, as in configs.sh: the tests' scratch one)
CONFIGS_TSV = os.environ.get("WL_CONFIGS_TSV") or os.path.join(HERE, "configs.tsv")
ROLES_TSV = os.path.join(HERE, "roles.tsv")
CONFIG_FIELDS = ("xfs_bs", "pawu", "atomic", "pg_bs", "fpw", "walcomp", "sync", "pg_wal",
                 "xfs_mount", "cuts", "role", "what")
ROLE_FIELDS = ("crash", "evidence", "test", "expect", "meaning")
CONTROL_MIN_RATE = 0.9  # the report's rule for a control (roles.tsv: expect corrupt or lost)


def _table(path, fields, fill=None):
    """Rows by name; fill (field, value): a row one field short lacks that
    field (a table written before it existed) and gets the value."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cells = line.rstrip("\n").split("\t")
            if fill and len(cells) == len(fields):
                cells.insert(fields.index(fill[0]) + 1, fill[1])
            if len(cells) != len(fields) + 1:
                raise ValueError(f"{path}:{n}: {len(cells)} fields, not {len(fields) + 1}")
            out[cells[0]] = dict(zip(fields, cells[1:]))
    return out


def read_configs(path=CONFIGS_TSV):
    """configs.tsv: name -> dict(xfs_bs, pawu, atomic, pg_bs, fpw, walcomp, sync, pg_wal,
    xfs_mount, cuts, role, what).  A table from before pg_bs (hostbench's
    results of an earlier version) is of Debian's 8k pages."""
    return _table(path, CONFIG_FIELDS, fill=("pg_bs", "8192"))


def read_roles(path=ROLES_TSV):
    """roles.tsv: role -> dict(crash, evidence, test, expect, meaning)."""
    return _table(path, ROLE_FIELDS)


CHECKS_TSV = os.path.join(HERE, "checks.tsv")


def read_checks(path=CHECKS_TSV):
    """checks.tsv: the post-crash checks in table order, each a dict(name,
    phase, finds, what, columns: [(column, clean value or None)])."""
    out = []
    for name, t in _table(path, ("phase", "finds", "columns", "what")).items():
        cols = [(c.split("=", 1)[0], c.split("=", 1)[1] if "=" in c else None)
                for c in t["columns"].split()]
        out.append({"name": name, "phase": t["phase"], "finds": t["finds"], "what": t["what"],
                    "columns": cols})
    return out


def check_found(check, row):
    """Whether the check found damage in a crash.csv row: one of its marked
    columns holds a value but its clean one (NA: it did not run; empty: the
    row is from before the column existed)."""
    return any(row.get(c) not in (None, "", "NA", clean)
               for c, clean in check["columns"] if clean is not None)


CONFIGS = read_configs()
CHECKS = read_checks()
ROLES = read_roles()
for _c, _t in CONFIGS.items():
    if _t["role"] not in ROLES:
        raise ValueError(f"{CONFIGS_TSV}: {_c} has role '{_t['role']}', not one of roles.tsv")


def expect(c):
    """What the configuration's role expects of its crash cycles: clean,
    corrupt, lost or none (roles.tsv)."""
    return ROLES[CONFIGS[c]["role"]]["expect"] if c in CONFIGS else "none"


def crash_configs():
    """The configurations the crash loop runs, in table order."""
    return [c for c, t in CONFIGS.items() if ROLES[t["role"]]["crash"] == "yes"]


def no_torn_data(c):
    """A configuration that must come through clean without full-page writes
    claims that no piece of file data tears, not only that no check noticed
    one."""
    return expect(c) == "clean" and CONFIGS[c]["fpw"] == "off"


def expectation_text(c):
    e = expect(c)
    if e == "clean":
        return ("never corrupt, never lose a commit, every cycle tested something"
                + (", no torn piece of file data" if no_torn_data(c) else ""))
    if e == "corrupt":
        return f"control: corruption in at least {CONTROL_MIN_RATE:.0%} of tested cycles"
    if e == "lost":
        return (f"the ledger's control: acknowledged commits lost in at least "
                f"{CONTROL_MIN_RATE:.0%} of tested cycles, never corrupt")
    return "no expectation: measured"


def num(v):
    """A CSV cell as a number, or None when it is empty or not one."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def tally(rows):
    """The counts the rules look at, over crash.csv rows: cycles, tested,
    corrupt, untested, lost (lost_tested: of them tested), and the torn pieces of file data (pages_torn
    less meta_pages_torn; data_torn_unknown counts cycles from before
    tornblk told XFS's own writes apart that had torn pieces)."""
    t = {"cycles": 0, "tested": 0, "corrupt": 0, "untested": 0, "lost": 0, "lost_tested": 0,
         "data_torn": 0, "meta_torn": 0, "data_torn_unknown": 0}
    for r in rows:
        v = r["verdict"]
        t["cycles"] += 1
        t["corrupt"] += v.startswith("corrupt")
        t["untested"] += v.startswith("untested")
        t["tested"] += not v.startswith("untested")
        t["lost"] += v.endswith("lost")
        t["lost_tested"] += v.endswith("lost") and not v.startswith("untested")
        meta, torn = num(r.get("meta_pages_torn")), num(r.get("pages_torn"))
        if meta is not None and torn is not None:
            if meta > torn:
                raise ValueError(f"crash.csv of {r['config']}, cycle {r.get('cycle')}: "
                                 f"{meta:.0f} torn metadata pieces of {torn:.0f} torn")
            t["meta_torn"] += int(meta)
            t["data_torn"] += int(torn - meta)
        elif torn:
            t["data_torn_unknown"] += 1
    return t


def judge(c, t, min_rate=CONTROL_MIN_RATE):
    """The reasons the tallied cycles of configuration c break its role's
    rule (empty: they meet it).  min_rate: the share of tested cycles a
    control must find corrupt, or lose commits in (the report's 0.9; a test
    that stops at the first such cycle asks for any)."""
    e, why = expect(c), []
    if e in ("clean", "lost") and t["corrupt"]:
        why.append(f"{t['corrupt']} corrupt cycles")
    if e in ("corrupt", "lost") and not t["tested"]:
        why.append("no tested cycle")
    if e == "clean":
        if t["lost"]:
            why.append(f"{t['lost']} cycles lost acknowledged commits")
        if t["untested"]:
            why.append(f"{t['untested']} cycles tested nothing")
        if no_torn_data(c) and t["data_torn"]:
            why.append(f"{t['data_torn']} torn pieces of file data at the cuts "
                       "(a data write was not atomic)")
    elif e == "corrupt" and t["tested"]:
        if t["corrupt"] == 0 or t["corrupt"] < min_rate * t["tested"]:
            why.append(f"corrupt in {t['corrupt']} of {t['tested']} tested cycles: the checks "
                       "are not biting")
    elif e == "lost" and t["tested"]:
        if t["lost_tested"] == 0 or t["lost_tested"] < min_rate * t["tested"]:
            why.append(f"acknowledged commits lost in {t['lost_tested']} of {t['tested']} tested "
                       "cycles: the ledger check is not biting")
    return why


def main(argv):
    if len(argv) != 3 or argv[1] != "judge":
        sys.exit("usage: configs.py judge CRASH_CSV")
    with open(argv[2], newline="") as f:
        rows = list(csv.DictReader(f))
    names = {r["config"] for r in rows}
    if len(names) != 1:
        sys.exit(f"configs.py: {argv[2]} holds {len(names)} configurations, not one")
    c = names.pop()
    if c not in CONFIGS:
        sys.exit(f"configs.py: {argv[2]}: unknown configuration '{c}'")
    t = tally(rows)
    print(f"{c} ({CONFIGS[c]['role']}): {t['cycles']} cycles, {t['corrupt']} corrupt, "
          f"{t['lost']} with lost commits, {t['untested']} untested, {t['data_torn']} torn "
          f"pieces of file data")
    why = judge(c, t, min_rate=0.0)
    for w in why:
        print(f"{c}: {w}", file=sys.stderr)
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
