#!/bin/bash
# BLKBSZSET cycling through 4k, 16k and 64k on a tornblk device (4k logical
# blocks) while other threads fill its page cache by splice, fadvise and
# readahead, page faults of a shared mapping, direct writes that fall back
# to buffered writes, and partition table rescans (kernel/tests/bszrace.c).  Every path must see one
# block size and folio order: no oops, no BUG, no splat (run-vm fails the
# test on any), and every thread must have done work.
# vm: mem=2048 timeout=300
# test: bsz-race kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
BSZRACE=/lbs/build/kernel/tests/bszrace
[ -x "$BSZRACE" ] || t_fail "$BSZRACE missing (built with the project)"
dev=$(t_tornblk_create bszr size_mb=64 logical_block_size=4096 partitions=1)
out=$("$BSZRACE" "$dev" 20 4096 16384 65536) || t_fail "bszrace failed: $out"
t_log "operations per thread: $(tr '\n' ' ' <<<"$out")"
# The device still reads and writes at its last block size.
dd if=/dev/zero of="$dev" bs=64k count=16 oflag=direct status=none || t_fail "writing $dev afterwards failed"
dd if="$dev" of=/dev/null bs=64k count=16 status=none || t_fail "reading $dev afterwards failed"
t_tornblk_remove bszr
t_pass "20 s of BLKBSZSET against splice, fadvise, faults, direct-write fallbacks and partition rescans"
