#!/usr/bin/env bash
# write and race refuse a journal that is their own target under another
# name (./t, a symlink, a hard link; a block device under two names is in
# test_place.c), whatever the options, before opening either; and a journal
# on the target's filesystem unless --journal-same-device asks for it.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

t=$scratch/t
truncate -s 1M "$t"
sum=$(cksum <"$t")
ln -s t "$scratch/link"
ln "$t" "$scratch/hard"
for j in "$scratch/./t" "$scratch/link" "$scratch/hard"; do
	refuses "write -j $j" "is the target" write "$t" -b 4k -c 4 -j "$j"
	refuses "write -j $j --journal-same-device" "is the target" \
		write "$t" -b 4k -c 4 -j "$j" --journal-same-device
	refuses "race -j $j" "is the target" race "$t" -b 16k -c 1 -j "$j"
	same_bytes "journal $j" "$t" "$sum"
done

refuses "journal on the target's filesystem" "same device" write "$t" -b 4k -c 4 -j "$scratch/j"
check "a refused journal is not created" test ! -e "$scratch/j"
refuses "race, journal on the file's filesystem" "same device" race "$t" -b 16k -c 1 -j "$scratch/j"
check "a refused race journal is not created" test ! -e "$scratch/j"
refuses "journal in a missing directory" "No such file" \
	write "$t" -b 4k -c 4 -j "$scratch/none/j" --journal-same-device
works "--journal-same-device" write "$t" -b 4k -c 4 -j "$scratch/j" --journal-same-device
works "verify after it" verify "$t" -j "$scratch/j"
cli_done
