#!/usr/bin/env bash
# advise judges database directories: a PostgreSQL data directory
# (PG_VERSION or global/pg_control) or tablespace (a PG_<version>_<catversion>
# directory), or an InnoDB one (ibdata1, mysql.ibd, ib_logfile0 or
# #innodb_redo), with or without --innodb (the guest's advise test judges a
# PostgreSQL directory as InnoDB).  Any other directory (a WAL directory, an
# empty filesystem: advise's own other-filesystems line and hostbench send
# users there) is judged only for the page size --page-size names; without
# it, it is refused with one line that says to pass --page-size.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

# judged WHAT ARGS...: advise gives a verdict (exit 0, 2 or 3).
judged() {
	local what=$1
	shift
	checks=$((checks + 1))
	run advise "$@"
	if [ "$rc" -eq 1 ] || ! grep -q '^verdict: ' <<<"$out"; then
		fail "$what: want a verdict; got exit $rc: $out"
	fi
}

mkdir -p "$scratch/empty" "$scratch/pgv" "$scratch/pgc/global" "$scratch/inno" \
	"$scratch/redo/#innodb_redo" "$scratch/ts/PG_16_202307071/5" "$scratch/ts96/PG_9.6_201608131" \
	"$scratch/notts/PG_16" "$scratch/notts/PG__1" "$scratch/notts/PG_16_x"
echo 16 >"$scratch/pgv/PG_VERSION"
: >"$scratch/pgc/global/pg_control"
: >"$scratch/inno/ibdata1"
: >"$scratch/empty/file"
: >"$scratch/ts/PG_16_202307071/5/16384"
: >"$scratch/notts/PG_16_202307071" # a file, not the tablespace's directory

for d in "$scratch/empty" "$scratch/notts" /proc /; do
	refuses "advise $d" "neither a PostgreSQL data directory or tablespace nor an InnoDB" \
		advise "$d"
	refuses "advise $d --innodb" "pass --page-size (and --innodb for InnoDB)" \
		advise "$d" --innodb --buffered
done
run advise "$scratch/empty"
check "a refusal is one line: $out" test "$(wc -l <<<"$out")" -eq 1
judged "PG_VERSION" "$scratch/pgv"
judged "global/pg_control" "$scratch/pgc"
judged "ibdata1, --innodb" "$scratch/inno" --innodb --buffered
judged "#innodb_redo, --innodb" "$scratch/redo" --innodb --direct
judged "PostgreSQL as InnoDB" "$scratch/pgv" --innodb --buffered --page-size 16k

# A tablespace: statx is asked about a file of one of its databases.
judged "a tablespace" "$scratch/ts"
check "a tablespace's file is the statx probe: $out" \
	grep -q "statx-atomic .*PG_16_202307071/5/16384" <<<"$out"
judged "a PostgreSQL 9.6 tablespace" "$scratch/ts96"

# Any directory with the page size named.
judged "an empty directory, --page-size 8k" "$scratch/empty" --page-size 8k
check "judged for 8k: $out" grep -q "page-size .*8192 bytes (--page-size)" <<<"$out"
judged "an empty directory, InnoDB" "$scratch/empty" --innodb --direct --page-size 16k
check "judged for InnoDB: $out" grep -q "innodb_doublewrite" <<<"$out"
cli_done
