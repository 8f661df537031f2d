#!/usr/bin/env bash
# Host unit test of lib.sh's wl_csv, which resumes a results CSV: a file
# with the same header goes on; one written before columns were added gains
# them when asked ("add"), empty in its old rows, its values kept under
# their names, and is refused otherwise; one with a column this version does
# not write is refused and left alone.  Only the
# function is taken from lib.sh (the library itself runs in the guest).
set -euo pipefail
lib=$(cd "$(dirname "$0")/.." && pwd)/lib.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fn=$(sed -n '/^wl_csv() {$/,/^}$/p' "$lib")
[ -n "$fn" ] || { echo "csv-columns: FAIL: no wl_csv in $lib" >&2; exit 1; }
t_fail() { echo "refused: $*" >&2; exit 1; }
t_log() { :; }
eval "$fn"
fails=0
expect() { # expect WHAT FILE CONTENT
	if [ "$(cat "$2")" != "$3" ]; then
		printf 'csv-columns: FAIL: %s: got\n%s\n' "$1" "$(cat "$2")" >&2
		fails=$((fails + 1))
	fi
}

f=$scratch/a.csv
wl_csv "$f" "a,b,c"
expect "a new file gets the header" "$f" "a,b,c"
echo "1,2,3" >>"$f"
wl_csv "$f" "a,b,c"
expect "the same header goes on" "$f" "$(printf 'a,b,c\n1,2,3')"
if (wl_csv "$f" "a,b,x,c" 2>/dev/null); then
	echo "csv-columns: FAIL: new columns were added without 'add'" >&2
	fails=$((fails + 1))
fi
expect "without 'add' the file is left alone" "$f" "$(printf 'a,b,c\n1,2,3')"
echo >>"$f"
wl_csv "$f" "a,b,x,c,y" add
expect "added columns are empty in old rows, blank lines dropped" "$f" "$(printf 'a,b,x,c,y\n1,2,,3,')"
printf 'a,b,z\n1,2,9\n' >"$scratch/b.csv"
if (wl_csv "$scratch/b.csv" "a,b" add 2>/dev/null); then
	echo "csv-columns: FAIL: a file with a column this version lacks was accepted" >&2
	fails=$((fails + 1))
fi
expect "a refused file is left alone" "$scratch/b.csv" "$(printf 'a,b,z\n1,2,9')"
[ "$fails" -eq 0 ] || exit 1
echo "csv-columns: 7 checks passed"
