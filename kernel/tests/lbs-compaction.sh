#!/bin/bash
# Memory compaction over the page cache of a block device with 16k logical
# blocks: its folios are 16k (four pages) and carry buffer heads, and
# compaction migrates them through buffer_migrate_folio_norefs().  Migration
# must neither sleep in atomic context (a "BUG: sleeping function called
# from invalid context" on the debug kernel: copying a multi-page folio
# yields the CPU between pages, and the block device's migration held a
# spinlock across the copy) nor lose data: the device reads back what was
# written, from the cache and after the cache is dropped.
# run-vm fails the test on any splat in the kernel log.
# vm: timeout=900
# test: lbs-compaction kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require dd sha256sum
t_tornblk_load

mb=${LBS_COMPACTION_MB:-256}
rounds=${LBS_COMPACTION_ROUNDS:-3}
dev=$(t_tornblk_create cmp size_mb="$mb" logical_block_size=16384 physical_block_size=16384 \
	pawu=16384)
[ -w /proc/sys/vm/compact_memory ] || t_skip "no /proc/sys/vm/compact_memory (CONFIG_COMPACTION off)"

# Written once with O_DIRECT, so that tornblk holds the data and the page
# cache starts empty; then read buffered, which fills the cache with 16k
# folios with buffer heads.
t_log "writing $mb MiB of random data to $dev"
dd if=/dev/urandom of="$T_RANDOM" bs=1M count=16 status=none
for ((i = 0; i < mb / 16; i++)); do
	dd if="$T_RANDOM" of="$dev" bs=1M seek=$((i * 16)) oflag=direct status=none ||
		t_fail "writing $dev failed"
done
want=$(for ((i = 0; i < mb / 16; i++)); do cat "$T_RANDOM"; done | sha256sum)

migrated() { awk '$1 == "pgmigrate_success" { print $2 }' /proc/vmstat; }
m0=$(migrated)
for ((r = 1; r <= rounds; r++)); do
	got=$(dd if="$dev" bs=1M status=none | sha256sum)
	[ "$got" = "$want" ] || t_fail "round $r: buffered read of $dev differs from what was written"
	echo 1 >/proc/sys/vm/compact_memory || t_fail "compaction request failed"
	t_log "round $r: read $mb MiB through the page cache, compacted;" \
		"$(($(migrated) - m0)) pages migrated so far"
	if [ $((r % 2)) -eq 0 ]; then
		echo 1 >/proc/sys/vm/drop_caches
	fi
done
got=$(dd if="$dev" bs=1M status=none | sha256sum)
[ "$got" = "$want" ] || t_fail "after compaction the cached device differs from what was written"
echo 1 >/proc/sys/vm/drop_caches
got=$(dd if="$dev" bs=1M iflag=direct status=none | sha256sum)
[ "$got" = "$want" ] || t_fail "after compaction the device itself differs from what was written"
moved=$(($(migrated) - m0))
[ "$moved" -gt 0 ] || t_fail "compaction migrated no page: the test exercised nothing"
t_pass "$moved pages migrated in $rounds compactions of a 16k-block device's cache; data intact"
