#!/bin/bash
# RWF_ATOMIC at the edges of the write path: an atomic write is either
# written whole as one REQ_ATOMIC bio of the length asked for, at an offset
# aligned to it, or refused; it never completes short, torn or through the
# page cache.  Over a tornblk device with 4k sectors that takes atomic
# writes of 4k..64k:
#  raw device
#   - a buffer whose last page is PROT_NONE pins only in part: EINVAL, and
#     the device block keeps its old data (before the fix: the pinned part
#     went out as a short REQ_ATOMIC bio and the rest through the page cache);
#   - against a process that keeps the range dirty through a shared mapping,
#     page-cache invalidation fails now and then: those writes get EAGAIN,
#     and every write that succeeded reached the device as one REQ_ATOMIC
#     bio (before the fix: -EBUSY turned into a buffered write that reported
#     success);
#  XFS with 16k blocks
#   - O_APPEND onto a file whose size is 4k- but not 16k-aligned: EINVAL,
#     no REQ_ATOMIC bio below 16k alignment (before: one bio across two
#     blocks);
#   - RLIMIT_FSIZE below the write's end: EFBIG, no REQ_ATOMIC bio shorter
#     than 16k (before: a 4k "atomic" write that returned 4096);
#   - the mapped rival as above: only success or EAGAIN (before: EBUSY),
#     one REQ_ATOMIC bio per success.  The kernel's buffered fix writes a
#     file of 16k blocks back as REQ_ATOMIC bios too, which would hide a
#     write that went through the page cache among them; the rival runs on
#     XFS with 4k blocks (4k atomic writes), whose writeback stays plain.
# vm: timeout=900
# test: atomic-edges kernels=default,debug serial=yes
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs fallocate truncate dd od
t_tornblk_load
bs=16384
mnt=/mnt/edges
rival_writes=${ATOMIC_EDGES_WRITES:-500}
# While the rival runs, tornblk reads each page of a write this long after
# submission (as a DMA engine would), so that writeback of the range takes
# milliseconds and the rival re-dirties it meanwhile (no stable writes):
# without it the window between writeback and invalidation is too short
# to hit.
rival_dma_us=500

# rival NAME TARGET LEN [ARGS...]: atomic writes of LEN bytes against a
# mapped rival; only 'ok' and EAGAIN are allowed, each 'ok' must be one
# REQ_ATOMIC bio on NAME.  Prints the number of EAGAIN answers.
rival() {
	local name=$1 target=$2 len=$3 w0 w1 out ok again
	shift 3
	sync
	w0=$(t_tornblk_stat "$name" atomic_writes)
	echo "$rival_dma_us" >"$TB_CFG/$name/dma_delay_us" || t_fail "setting dma_delay_us failed"
	out=$("$ATOMICW" probe "$target" -b "$len" --rival -c "$rival_writes" "$@" 2>&1) || true
	echo 0 >"$TB_CFG/$name/dma_delay_us" || t_fail "clearing dma_delay_us failed"
	w1=$(t_tornblk_stat "$name" atomic_writes)
	t_log "  $out; device saw $((w1 - w0)) REQ_ATOMIC writes"
	case $out in
	*"probe: rival"*) ;;
	*) t_fail "rival probe of $target did not run: $out" ;;
	esac
	ok=$(sed -n 's/.*: ok \([0-9]*\).*/\1/p' <<<"$out")
	again=$(sed -n 's/.*, EAGAIN \([0-9]*\).*/\1/p' <<<"$out")
	again=${again:-0}
	[ "$(sed 's/.*: ok [0-9]*//; s/, EAGAIN [0-9]*//; s/, short 0$//' <<<"$out")" = "" ] ||
		t_fail "an atomic write against the rival got an answer other than success or EAGAIN: $out"
	[ $((w1 - w0)) -eq "$ok" ] ||
		t_fail "$ok atomic writes succeeded but the device saw $((w1 - w0)) REQ_ATOMIC bios:" \
			"some completed through the page cache"
	echo "$again"
}

# --- the raw device ----------------------------------------------------------
dev=$(t_tornblk_create edge size_mb=512 logical_block_size=4096 physical_block_size=4096 \
	pawu=4096 atomic_unit_min=4096 atomic_unit_max=65536)
t_log "raw device $dev:"
dd if=/dev/zero bs="$bs" count=4 status=none | tr '\0' '\021' |
	dd of="$dev" bs="$bs" oflag=direct status=none || t_fail "filling $dev failed"
w0=$(t_tornblk_stat edge atomic_writes)
t_probe_expect EINVAL "$dev" -b "$bs" -o "$bs" --fault-tail -s 34
sync
t_bytes_are "$dev" "$bs" "$bs" 17
[ "$(t_tornblk_stat edge atomic_writes)" -eq "$w0" ] ||
	t_fail "a write whose buffer faulted reached the device as REQ_ATOMIC"
t_log "  a partly pinned buffer: refused, nothing reached the device, the block kept its data"
bdev_again=$(rival edge "$dev" "$bs" -o "$bs")

# --- XFS with 16k blocks -----------------------------------------------------
# On a device of its own: after the mapped rival, the first fsync of the
# raw device above reports a writeback error (EIO, with no I/O error at the
# device; not yet understood), which mkfs.xfs would trip over.
dev=$(t_tornblk_create edgefs size_mb=512 logical_block_size=4096 physical_block_size=4096 \
	pawu=4096 atomic_unit_min=4096 atomic_unit_max=65536)
t_mkfs_xfs "$dev" "$bs" -s size=4096
t_mount "$dev" "$mnt"
t_log "XFS, $bs-byte blocks:"
base_misaligned=$(t_tornblk_hist_below edgefs atomic_align "$bs")
base_short=$(t_tornblk_hist_below edgefs atomic_size "$bs")

# O_APPEND: the size is 20k, so the append would start mid-block.
: >"$mnt/append"
fallocate -n -l 1m "$mnt/append" || t_fail "fallocate $mnt/append failed"
truncate -s 20k "$mnt/append" || t_fail "truncate $mnt/append failed"
t_probe_expect EINVAL "$mnt/append" -b "$bs" --append -s 51
[ "$(stat -c %s "$mnt/append")" -eq 20480 ] || t_fail "the refused append changed the file size"

# RLIMIT_FSIZE of 4k (bash counts in KiB) would cut the write to 4k.
: >"$mnt/limit"
fallocate -n -l 1m "$mnt/limit" || t_fail "fallocate $mnt/limit failed"
t_log "  with RLIMIT_FSIZE 4k:"
(ulimit -f 4 && t_probe_expect EFBIG "$mnt/limit" -b "$bs" -o 0 -s 68)
[ "$(stat -c %s "$mnt/limit")" -eq 0 ] || t_fail "the refused write changed the file size"
sync
[ "$(t_tornblk_hist_below edgefs atomic_align "$bs")" -eq "$base_misaligned" ] ||
	t_fail "a REQ_ATOMIC bio was aligned below $bs"
[ "$(t_tornblk_hist_below edgefs atomic_size "$bs")" -eq "$base_short" ] ||
	t_fail "a REQ_ATOMIC bio was shorter than $bs"
t_log "  no REQ_ATOMIC bio shorter than or aligned below $bs"

umount "$mnt" || t_fail "umount $mnt failed"
t_xfs_check "$dev"
t_tornblk_remove edgefs

dev=$(t_tornblk_create edge4k size_mb=512 logical_block_size=4096 physical_block_size=4096 \
	pawu=4096 atomic_unit_min=4096 atomic_unit_max=65536)
t_mkfs_xfs "$dev" 4096 -s size=4096
t_mount "$dev" "$mnt"
t_log "XFS, 4096-byte blocks:"
: >"$mnt/rival"
fallocate -l 1m "$mnt/rival" || t_fail "fallocate $mnt/rival failed"
xfs_again=$(rival edge4k "$mnt/rival" 4096 -o $((2 * bs)))
umount "$mnt" || t_fail "umount $mnt failed"
t_xfs_check "$dev"

# The rival runs must have hit the race they exist for, or they tested nothing.
if [ "$bdev_again" -eq 0 ] || [ "$xfs_again" -eq 0 ]; then
	t_fail "invalidation never failed ($bdev_again EAGAIN on the device, $xfs_again on XFS in" \
		"$rival_writes writes each): the rival tested nothing"
fi
t_pass "refusals as specified; $bdev_again + $xfs_again invalidation failures answered EAGAIN"
