#!/usr/bin/env bash
# write and bench --create check everything they can before they create or
# grow the target (or any output file): a refused run leaves no new file
# behind and an existing one at its size.  The one check that needs the
# file itself (statx's atomic write limits, for --atomic) removes what it
# created, or shrinks back what it grew, when it refuses.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

new=$scratch/new old=$scratch/old j=$scratch/j
truncate -s 64k "$old"


refuses "write, no room in the size to create" "no room" \
	write "$new" --create 1m -b 4k -n 1000 -j "$j" --journal-same-device
absent "write, no room" "$new" "$j"
refuses "write, no room in the size to grow to" "no room" \
	write "$old" --create 1m -b 4k -n 1000 -j "$j" --journal-same-device
grown "write, no room" "$old"
refuses "write, journal is the new target" "is the target" \
	write "$new" --create 1m -b 4k -j "$scratch/./new" --journal-same-device
absent "write, journal is the target" "$new"
refuses "write, journal in a missing directory" "No such file" \
	write "$new" --create 1m -b 4k -j "$scratch/none/j" --journal-same-device
absent "write, missing journal directory" "$new"

refuses "bench, too small" "too small" \
	bench "$new" --create 1m -b 4k -n 1000 -c 1 --csv "$scratch/b.csv" \
	--json "$scratch/b.json" --rounds-csv "$scratch/r.csv"
absent "bench, too small" "$new" "$scratch/b.csv" "$scratch/b.json" "$scratch/r.csv"
refuses "bench, too small to grow to" "too small" bench "$old" --create 1m -b 4k -n 1000 -c 1
grown "bench, too small" "$old"

# --atomic where statx reports no atomic writes for a 1m block (all but a
# few filesystems and devices): refused with exit 2, nothing left behind.
run write "$new" --create 4m -b 1m --atomic -j "$j" --journal-same-device
if [ "$rc" -eq 2 ]; then
	absent "write --atomic refused" "$new" "$j"
	run write "$old" --create 4m -b 1m --atomic -j "$j" --journal-same-device
	check "write --atomic refused: exit 2" test "$rc" -eq 2
	grown "write --atomic refused" "$old"
	run bench "$new" --create 4m -b 1m -n 2 -c 1 --modes atomic --csv "$scratch/b.csv"
	check "bench --atomic refused: exit 2" test "$rc" -eq 2
	absent "bench --atomic refused" "$new" "$scratch/b.csv"
else
	echo "$name: 1m RWF_ATOMIC writes work here: the refusal cases are not run"
fi
cli_done
