#!/bin/bash
# Atomic write limits that shrink under a mounted untorn filesystem (the
# buffered part of the series), as an NVMe namespace's do when it is
# formatted or rescanned: tornblk's atomic_unit_max shrinks on the live
# device, to 8k (below the 16k block) on one device and to 0 (no atomic
# writes) on another.
# With dirty data and metadata in the page cache at that moment, nothing
# may be lost and nothing may hang: sync and fsync succeed, the data reads
# back after a remount, xfs_repair finds the filesystem clean, the kernel
# says once that blocks are written plainly from now on, both sysfs
# attributes and statx follow (0), and no more REQ_ATOMIC writes reach the
# device.  A kernel that kept the limits read at mount sends atomic writes
# the device no longer takes: writeback fails (EIO, data lost) and metadata
# writes are retried for ever (sync hangs).
# vm: timeout=600
# test: untorn-limits kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs cmp timeout
bs=16384
head -c 4M /dev/urandom >/tmp/lim.src || t_fail "making the source data failed"

attrs() { echo "$(cat "/sys/fs/xfs/$name/untorn_buffered_bytes") $(cat "/sys/fs/xfs/$name/untorn_metadata_bytes")"; }
# within SECONDS WHAT CMD...: CMD must finish (successfully) in time.
within() {
	local secs=$1 what=$2 pid waited=0
	shift 2
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		[ "$waited" -lt "$secs" ] || t_fail "$what did not finish in $secs s (hung): $(dmesg | tail -n 3)"
		sleep 1
		waited=$((waited + 1))
	done
	wait "$pid" || t_fail "$what failed: $(dmesg | tail -n 3)"
}

# shrink TO: on a new device, with dirty data and metadata, shrink the limit
# to TO; the device stays (NAME, DEV, MNT).
shrink() {
	local to=$1 round=$1 before after i
	name=lim$to mnt=/mnt/lim$to
	dev=$(t_tornblk_create "$name" size_mb=512 logical_block_size=4096 physical_block_size=4096 \
		pawu=4096 atomic_unit_min=4096 atomic_unit_max=16384)
	t_mkfs_xfs "$dev" "$bs" -s size=4096
	t_mount "$dev" "$mnt"
	[ "$(attrs)" = "$bs $bs" ] || t_fail "round $round: before the change the attributes read $(attrs), want $bs $bs"
	cp /tmp/lim.src "$mnt/data$round" || t_fail "round $round: writing the data failed"
	mkdir -p "$mnt/dir$round"
	for i in $(seq 1 300); do : >"$mnt/dir$round/file$i"; done
	dmesg -C
	echo "$to" >"$TB_CFG/$name/atomic_unit_max" || t_fail "round $round: shrinking atomic_unit_max to $to was refused"
	t_log "round $round: atomic_unit_max now $(cat "/sys/block/$name/queue/atomic_write_unit_max_bytes") bytes, with $(grep -E '^(Dirty):' /proc/meminfo | tr -s ' ')"
	within 120 "fsync of the data" sync "$mnt/data$round"
	within 120 "sync" sync
	dmesg | grep -q "no longer cover $bs-byte blocks" ||
		t_fail "round $round: the kernel did not say that blocks are now written plainly: $(dmesg | tail -n 3)"
	[ "$(attrs)" = "0 0" ] || t_fail "round $round: after the change the attributes read $(attrs), want 0 0"
	[ "$(t_info_field "$mnt/data$round" atomic_write_unit_max)" = 0 ] || t_fail "round $round: statx still offers an atomic unit of $(t_info_field "$mnt/data$round" atomic_write_unit_max)"
	before=$(t_tornblk_stat "$name" atomic_writes)
	cp /tmp/lim.src "$mnt/more$round" && within 120 "fsync of more data" sync "$mnt/more$round"
	after=$(t_tornblk_stat "$name" atomic_writes)
	[ "$after" = "$before" ] || t_fail "round $round: $((after - before)) REQ_ATOMIC writes after the limits shrank"
	t_log "round $round: $(dmesg | grep 'no longer cover' | head -n 1)"
	umount "$mnt" || t_fail "round $round: umount failed"
	t_xfs_check "$dev"
	t_mount "$dev" "$mnt"
	cmp /tmp/lim.src "$mnt/data$round" || t_fail "round $round: the data written before the change reads back different"
	cmp /tmp/lim.src "$mnt/more$round" || t_fail "round $round: the data written after the change reads back different"
	[ "$(find "$mnt/dir$round" -type f | wc -l)" = 300 ] || t_fail "round $round: files created before the change are missing"
	umount "$mnt"
}

shrink 8192
# The device now takes atomic writes up to 8k: a new mount of 16k blocks
# keeps nothing untorn from the start, and says nothing.
t_mount "$dev" "$mnt"
[ "$(attrs)" = "0 0" ] || t_fail "a new mount over 8k atomic limits reads $(attrs), want 0 0"
umount "$mnt"
t_tornblk_remove "$name"
t_log "a new mount over 8k limits: 0 0, as it should"
shrink 0
t_tornblk_remove "$name"
t_pass "atomic limits that shrink under a mounted untorn filesystem: no data lost, no hang, a kernel message, sysfs and statx follow"
