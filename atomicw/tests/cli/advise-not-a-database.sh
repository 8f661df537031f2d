#!/usr/bin/env bash
# advise judges database directories: one that is neither a PostgreSQL data
# directory (PG_VERSION or global/pg_control) nor an InnoDB one (ibdata1,
# mysql.ibd, ib_logfile0 or #innodb_redo) is refused with one line, not
# given a PostgreSQL verdict.  Either kind is judged, with or without
# --innodb (the guest's advise test judges a PostgreSQL directory as InnoDB).
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

mkdir -p "$scratch/empty" "$scratch/pgv" "$scratch/pgc/global" "$scratch/inno" "$scratch/redo/#innodb_redo"
echo 16 >"$scratch/pgv/PG_VERSION"
: >"$scratch/pgc/global/pg_control"
: >"$scratch/inno/ibdata1"
: >"$scratch/empty/file"

for d in "$scratch/empty" /proc /; do
	refuses "advise $d" "neither a PostgreSQL data directory nor an InnoDB one" advise "$d"
	refuses "advise $d --innodb" "neither a PostgreSQL" advise "$d" --innodb --buffered
done
run advise "$scratch/empty"
check "a refusal is one line: $out" test "$(wc -l <<<"$out")" -eq 1
judged "PG_VERSION" "$scratch/pgv"
judged "global/pg_control" "$scratch/pgc"
judged "ibdata1, --innodb" "$scratch/inno" --innodb --buffered
judged "#innodb_redo, --innodb" "$scratch/redo" --innodb --direct
judged "PostgreSQL as InnoDB" "$scratch/pgv" --innodb --buffered --page-size 16k
cli_done
