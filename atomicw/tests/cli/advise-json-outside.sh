#!/usr/bin/env bash
# advise only reads: --json may not name a file inside the data directory
# it judges (--json DATADIR/PG_VERSION overwrote a cluster's file), by any
# path: directly, through a symlink to the directory or to the file, with
# the directory itself named through a symlink, or as a hard link of a
# file on the directory's filesystem.  Resolved with realpath; a JSON file
# still to be made by its parent directory.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

d=$scratch/pg
mkdir -p "$d/global" "$d/base/1"
echo 16 >"$d/PG_VERSION"
: >"$d/global/pg_control"
sum=$(cksum <"$d/PG_VERSION")
ln -s pg "$scratch/alias"
ln -s pg/PG_VERSION "$scratch/pgv"
ln "$d/PG_VERSION" "$scratch/hard"

refuses "--json DIR/PG_VERSION" "inside the data directory" advise "$d" --json "$d/PG_VERSION"
refuses "--json DIR/new.json" "inside the data directory" advise "$d" --json "$d/new.json"
refuses "--json DIR/base/1/x" "inside the data directory" advise "$d" --json "$d/base/1/x"
refuses "--json through a symlink to DIR" "inside the data directory" \
	advise "$d" --json "$scratch/alias/PG_VERSION"
refuses "--json a symlink to DIR/PG_VERSION" "inside the data directory" \
	advise "$d" --json "$scratch/pgv"
refuses "DIR named through a symlink" "inside the data directory" \
	advise "$scratch/alias" --json "$d/global/x.json"
refuses "--json DIR/../pg/x" "inside the data directory" advise "$d" --json "$d/../pg/x"
refuses "--json a hard link of DIR/PG_VERSION" "hard links" advise "$d" --json "$scratch/hard"
same_bytes "--json DIR/PG_VERSION" "$d/PG_VERSION" "$sum"
check "no JSON file was made in DIR" test ! -e "$d/new.json" -a ! -e "$d/base/1/x" \
	-a ! -e "$d/global/x.json" -a ! -e "$d/x"

# Beside the directory it is written; a verdict is exit 0, 2 or 3.
run advise "$d" --json "$scratch/pg.json"
check "--json beside DIR: exit $rc: $out" test "$rc" -ne 1
check "--json beside DIR: written" grep -q '"verdict"' "$scratch/pg.json"
run advise "$d" --json -
check "--json -: exit $rc: $out" test "$rc" -ne 1
cli_done
