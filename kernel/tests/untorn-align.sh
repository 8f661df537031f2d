#!/bin/bash
# Atomic and untorn blocks only where the device never has to split one (the
# buffered part of the series): a device of 4k sectors with atomic writes of
# 4k-64k and 16k chunks (tornblk chunk_size: the block layer splits bios at
# chunk boundaries, as at NVMe's NOIOB, and fails an atomic write that
# crosses one), three partitions with 16k XFS on each:
#   p1 4k and p2 8k past a 16k boundary: every block straddles a chunk
#   boundary on the device.  XFS must offer nothing atomic there:
#   untorn_buffered_bytes and untorn_metadata_bytes 0, no statx atomic unit,
#   RWF_ATOMIC refused with EOPNOTSUPP, buffered writes and fsync succeed with
#   no REQ_ATOMIC write (the device tears plain writes in 4k as it may);
#   p3 on a 16k boundary: 16384 in both attributes, a 16k atomic unit in
#   statx, RWF_ATOMIC done, writeback as REQ_ATOMIC writes; no I/O fails.
# Then an RWF_ATOMIC write of 16k to the raw p1 (the block device allows it:
# its start is aligned to the unit minimum) crosses a chunk: the block layer
# fails it with EINVAL, says why in the kernel log, and nothing reaches the
# device.
# vm: timeout=600
# test: untorn-align kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs sfdisk
bs=16384

t_tornblk_create aln size_mb=1024 logical_block_size=4096 physical_block_size=4096 pawu=4096 \
	atomic_unit_min=4096 atomic_unit_max=65536 chunk_size=16384 partitions=1 >/dev/null
# In 4k sectors: 4k, 8k and 0 past a 16k boundary (XFS needs 300 MB each).
printf 'label: dos\nunit: sectors\nstart=2049, size=81920, type=83\nstart=83970, size=81920, type=83\nstart=167936, size=81920, type=83\n' |
	sfdisk -q /dev/aln >/tmp/align-sfdisk.log 2>&1 ||
	{ cat /tmp/align-sfdisk.log >&2; t_fail "sfdisk on /dev/aln failed"; }

# part N WANT: partition N, whose blocks are untorn (WANT 16384) or not (0).
part() {
	local n=$1 want=$2 dev=/dev/aln$1 mnt=/mnt/aln$1 before got meta unit probe
	t_wait_bdev "$dev"
	t_log "p$n starts at byte $(($(cat "/sys/class/block/aln$n/start") * 512))"
	t_mkfs_xfs "$dev" "$bs" -s size=4096
	t_mount "$dev" "$mnt"
	before=$(t_tornblk_stat aln atomic_writes)
	# Buffered writes of whole and partial blocks, then fsync: must succeed.
	dd if=/dev/urandom of="$mnt/f" bs=1M count=2 conv=fsync status=none ||
		t_fail "p$n: buffered writes and fsync failed: $(dmesg | tail -n 3)"
	dd if=/dev/urandom of="$mnt/f" bs=8k count=5 seek=3 conv=notrunc,fsync status=none ||
		t_fail "p$n: 8k rewrites and fsync failed: $(dmesg | tail -n 3)"
	got=$(($(t_tornblk_stat aln atomic_writes) - before))
	meta=$(cat "/sys/fs/xfs/aln$n/untorn_metadata_bytes")
	unit=$(t_info_field "$mnt/f" atomic_write_unit_max)
	probe=$("$ATOMICW" probe "$mnt/f" -b "$bs" -o 0 2>&1 || true)
	t_log "p$n: $got REQ_ATOMIC writes; untorn_buffered_bytes $(cat "/sys/fs/xfs/aln$n/untorn_buffered_bytes")," \
		"untorn_metadata_bytes $meta; statx unit max $unit; RWF_ATOMIC: $probe"
	if [ "$want" = 0 ]; then
		[ "$got" = 0 ] || t_fail "p$n: $got REQ_ATOMIC writes from blocks that straddle chunks"
		[ "$unit" = 0 ] || t_fail "p$n: statx offers an atomic unit of $unit on blocks that straddle chunks"
		case $probe in *": EOPNOTSUPP"*) ;; *) t_fail "p$n: RWF_ATOMIC answered '$probe', want EOPNOTSUPP" ;; esac
	else
		[ "$got" -gt 0 ] || t_fail "p$n: no REQ_ATOMIC write from an aligned untorn file"
		[ "$unit" = "$bs" ] || t_fail "p$n: statx atomic unit max $unit, want $bs"
		case $probe in *": ok"*) ;; *) t_fail "p$n: RWF_ATOMIC answered '$probe', want ok" ;; esac
	fi
	[ "$(cat "/sys/fs/xfs/aln$n/untorn_buffered_bytes") $meta" = "$want $want" ] ||
		t_fail "p$n: untorn_buffered_bytes $(cat "/sys/fs/xfs/aln$n/untorn_buffered_bytes"), untorn_metadata_bytes $meta (want $want $want)"
	umount "$mnt" || t_fail "umount $mnt failed"
	t_xfs_check "$dev"
}

part 1 0
part 2 0
part 3 "$bs"
[ "$(t_tornblk_stat aln io_errors)" = 0 ] || t_fail "the device failed $(t_tornblk_stat aln io_errors) I/Os"

before=$(t_tornblk_stat aln atomic_writes)
dmesg -C
out=$("$ATOMICW" probe /dev/aln1 -b "$bs" -o 0 2>&1 || true)
case $out in *": EINVAL"*) ;; *) t_fail "raw p1: an RWF_ATOMIC write across a chunk answered '$out', want EINVAL" ;; esac
dmesg | grep -q "aln.*atomic write of $bs bytes .*needs a split, failing it" ||
	t_fail "raw p1: the kernel log does not say why the atomic write failed: $(dmesg | tail -n 3)"
[ "$(t_tornblk_stat aln atomic_writes)" = "$before" ] || t_fail "raw p1: part of a refused atomic write reached the device"
t_log "raw p1: $out; $(dmesg | grep 'needs a split' | head -n 1)"
t_pass "16k XFS offers atomic and untorn blocks only on the partition aligned to 16k over a device with 16k chunks; an atomic write across a chunk fails loudly"
