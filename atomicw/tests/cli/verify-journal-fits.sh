#!/usr/bin/env bash
# verify checks the blocks a journal names against the target before it
# allocates anything per block: a journal written for a 15 TiB sparse file
# (15 million blocks, 360 MiB of state), verified against a 1 MiB file
# under a 200 MiB address-space limit, is refused for its size, not for
# lack of memory.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

big=$scratch/big small=$scratch/small j=$scratch/j
if ! truncate -s 15T "$big" 2>/dev/null; then
	echo "$name: $scratch cannot hold a 15 TiB sparse file: nothing to test"
	exit 0
fi
truncate -s 1M "$small"
works "write one block of the big file" write "$big" -b 1m -c 1 -j "$j" --journal-same-device
rc=0
out=$(ulimit -v 204800 && "$AW" verify "$small" -j "$j" 2>&1) || rc=$?
checks=$((checks + 1))
if [ "$rc" -ne 1 ] || ! grep -q "is only 1048576 bytes" <<<"$out"; then
	fail "verify against a small target: want exit 1 and 'is only 1048576 bytes'; got exit $rc: $out"
fi
refuses "verify against a small target, no memory limit" "is only" verify "$small" -j "$j"
cli_done
