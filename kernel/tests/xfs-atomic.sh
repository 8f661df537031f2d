#!/bin/bash
# RWF_ATOMIC direct writes on XFS with BS-byte blocks (the atomic write patches).
# Usage: xfs-atomic.sh BS     (4k or 16k)
#
# Over a tornblk device that takes atomic writes of 4k..64k:
#  - statx reports unit_min = unit_max = BS, one segment, the attribute;
#  - one-block writes succeed into a hole, an unwritten extent, a written
#    block and beyond EOF, through pwritev2() and io_uring, and each reaches
#    the device as exactly one REQ_ATOMIC write of BS bytes, BS-aligned
#    (tornblk's counters and histogram);
#  - a wrong length, a misaligned offset or two iovecs give EINVAL, buffered
#    I/O EOPNOTSUPP on 4k blocks, and none of them reaches the device;
#  - on 16k blocks (kept untorn through the page cache) a buffered one is
#    taken, statx says so (STATX_WRITE_ATOMIC_BUF), and its block goes to
#    the device as REQ_ATOMIC; the same errors for a wrong one, and EINVAL
#    for one that straddles EOF.
# Over a tornblk device without atomic support (and, for BS > 4k, one whose
# atomic unit is smaller than BS): statx reports zeros and no attribute, and
# a valid write gets EOPNOTSUPP.
# vm: timeout=600
# test: xfs-atomic.4k kernels=default,debug -- 4k
# test: xfs-atomic.16k kernels=default,debug -- 16k
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

bs_arg=${1:?usage: xfs-atomic.sh BS}
case $bs_arg in
4k) bs=4096 ;;
16k) bs=16384 ;;
*) t_fail "block size must be 4k or 16k, got '$bs_arg'" ;;
esac
T_NAME="xfs-atomic-$bs_arg"
t_require mkfs.xfs fallocate cmp
t_tornblk_load
mnt=/mnt/atomic

# probe EXPECT FILE ARGS...: one RWF_ATOMIC write through pwritev2 and one
# through io_uring; both must answer EXPECT ('ok' or an errno name).
probe() {
	t_probe_expect "$@"
	t_probe_expect "$@" --uring
}

# block_is FILE BLOCK BYTE: block BLOCK of FILE holds BYTE (decimal) only.
block_is() { t_bytes_are "$1" $(($2 * bs)) "$bs" "$3"; }

counter() { t_tornblk_stat "$1" "$2"; }
# REQ_ATOMIC writes of file data: an untorn filesystem's metadata goes out
# atomically too (REQ_META), whenever XFS writes it back, which under KASAN
# can fall inside what a check counts.
data_atomic() { echo $(($(counter "$1" atomic_writes) - $(counter "$1" atomic_meta_writes))); }
hist() { # hist NAME KIND BYTES: count in tornblk's histogram, 0 if absent
	awk -v k="$2" -v b="$3" '$1 == k && $2 == b { print $3; f = 1 } END { if (!f) print 0 }' \
		"/sys/kernel/debug/tornblk/$1/hist"
}
# Atomic file data writes in the histogram whose offset alignment is below BS.
misaligned_atomic() { t_tornblk_hist_below "$1" atomic_data_align "$bs"; }

# --- an atomic-capable device --------------------------------------------
dev=$(t_tornblk_create aw size_mb=512 logical_block_size=4096 physical_block_size=4096 \
	pawu=4096 atomic_unit_min=4096 atomic_unit_max=65536)
t_mkfs_xfs "$dev" "$bs" -s size=4096
t_mount "$dev" "$mnt"

: >"$mnt/hole"
"$ATOMICW" probe "$mnt/hole" -b "$bs" --create 1m -o 0 >/dev/null ||
	t_fail "first atomic write to $mnt/hole failed"
if ! { [ "$(t_info_field "$mnt/hole" atomic_write_unit_min)" = "$bs" ] &&
	[ "$(t_info_field "$mnt/hole" atomic_write_unit_max)" = "$bs" ] &&
	[ "$(t_info_field "$mnt/hole" atomic_write_segments_max)" = 1 ] &&
	[ "$(t_info_field "$mnt/hole" attr_write_atomic)" = yes ]; }; then
	t_fail "statx atomic limits wrong: $("$ATOMICW" info "$mnt/hole" | tr -s ' ' | tr '\n' ';')"
fi
t_log "statx: unit_min = unit_max = $bs, segments_max 1, STATX_ATTR_WRITE_ATOMIC"

w0=$(data_atomic aw)
s0=$(hist aw atomic_data_size "$bs")
t_log "valid one-block atomic writes (pwritev2, then io_uring):"
probe ok "$mnt/hole" -b "$bs" -o $((3 * bs)) -s 17          # a hole inside EOF
block_is "$mnt/hole" 3 17
fallocate -l 1m "$mnt/unwritten" || t_fail "fallocate failed"
probe ok "$mnt/unwritten" -b "$bs" -o $((2 * bs)) -s 34     # an unwritten extent
block_is "$mnt/unwritten" 2 34
block_is "$mnt/unwritten" 1 0
probe ok "$mnt/hole" -b "$bs" -o $((3 * bs)) -s 51          # a written block
block_is "$mnt/hole" 3 51
: >"$mnt/eof"
probe ok "$mnt/eof" -b "$bs" -o $((5 * bs)) -s 68           # beyond EOF
block_is "$mnt/eof" 5 68
[ "$(stat -c %s "$mnt/eof")" -eq $((6 * bs)) ] || t_fail "write beyond EOF did not extend the file"
sync
w1=$(data_atomic aw)
s1=$(hist aw atomic_data_size "$bs")
t_log "device saw $((w1 - w0)) REQ_ATOMIC writes, $((s1 - s0)) of them $bs bytes;" \
	"$(misaligned_atomic aw) aligned below $bs"
[ $((w1 - w0)) -eq 8 ] || t_fail "8 accepted atomic writes, but the device saw $((w1 - w0)) REQ_ATOMIC writes"
[ $((s1 - s0)) -eq 8 ] || t_fail "not every REQ_ATOMIC write was one $bs-byte request"
[ "$(misaligned_atomic aw)" -eq 0 ] || t_fail "a REQ_ATOMIC write was not $bs-aligned"

t_log "the error contract:"
probe EINVAL "$mnt/hole" -b $((bs / 2)) -o 0                 # shorter than a block
probe EINVAL "$mnt/hole" -b $((2 * bs)) -o 0                 # two blocks
probe EINVAL "$mnt/hole" -b $((bs + 512)) -o 0               # not a power of two
probe EINVAL "$mnt/hole" -b "$bs" -o 512                     # misaligned offset
probe EINVAL "$mnt/hole" -b "$bs" -o $((bs / 2 + bs))        # misaligned, mid-block
probe EINVAL "$mnt/hole" -b "$bs" -o 0 --iovecs 2            # more than one iovec
[ "$bs" -gt 4096 ] ||  # no O_DIRECT: 4k blocks are not kept untorn buffered
	probe EOPNOTSUPP "$mnt/hole" -b "$bs" -o 0 --buffered -s 99
sync
[ "$(data_atomic aw)" -eq "$w1" ] || t_fail "a refused atomic write reached the device"
block_is "$mnt/hole" 0 1
block_is "$mnt/hole" 3 51
t_log "  no refused write reached the device; data unchanged"
if [ "$bs" -gt 4096 ]; then
	# Blocks above 4k on an atomic unit are kept untorn through the page
	# cache: one aligned block, from one buffer, is taken there too.
	t_log "buffered RWF_ATOMIC (a block the page cache keeps untorn):"
	probe ok "$mnt/hole" -b "$bs" -o $((5 * bs)) --buffered -s 77
	probe EINVAL "$mnt/hole" -b "$bs" -o 512 --buffered
	probe EINVAL "$mnt/hole" -b $((bs / 2)) -o 0 --buffered
	probe EINVAL "$mnt/hole" -b "$bs" -o 0 --buffered --iovecs 2
	# Across EOF it could be seen half done after a crash (the size moves
	# at writeback completion): refused; past EOF it is taken.
	truncate -s $((1048576 + 4096)) "$mnt/hole" || t_fail "truncate failed"
	probe EINVAL "$mnt/hole" -b "$bs" -o 1048576 --buffered
	probe ok "$mnt/hole" -b "$bs" -o $((1048576 + bs)) --buffered -s 66
	if [ "$(t_info_field "$mnt/hole" buffered_atomic_write_unit_max)" != "$bs" ] ||
		[ "$(t_info_field "$mnt/hole" attr_write_atomic_buf)" != yes ]; then
		t_fail "statx (STATX_WRITE_ATOMIC_BUF): $("$ATOMICW" info "$mnt/hole" | grep buf | tr -s ' ' | tr '\n' ';')"
	fi
	# Counted from the sync above, not from here: writeback (the
	# flusher, or the truncate) may already have sent the blocks, and
	# under KASAN the probes take long enough for that.
	sync
	block_is "$mnt/hole" 5 77
	block_is "$mnt/hole" $((1048576 / bs + 1)) 66
	w2=$(($(data_atomic aw) - w1))
	s2=$(($(hist aw atomic_data_size "$bs") - s1))
	if [ "$w2" -lt 2 ] || [ "$s2" -lt 2 ]; then
		t_fail "two buffered atomic blocks taken, but the device saw $w2 REQ_ATOMIC writes since ($s2 of $bs bytes)"
	fi
	t_log "  statx reports a buffered unit of $bs; the device saw $w2 REQ_ATOMIC writes since ($s2 of $bs bytes)"
fi
umount "$mnt" || t_fail "umount $mnt failed"
t_xfs_check "$dev"

# --- devices that cannot write a BS block atomically -----------------------
no_atomic() { # no_atomic NAME WHY ATTRS...
	local name=$1 why=$2 d
	shift 2
	d=$(t_tornblk_create "$name" size_mb=512 logical_block_size=4096 pawu=4096 "$@")
	t_mkfs_xfs "$d" "$bs" -s size=4096
	t_mount "$d" "$mnt"
	: >"$mnt/f"
	if ! { [ "$(t_info_field "$mnt/f" statx_write_atomic)" = reported ] &&
		[ "$(t_info_field "$mnt/f" atomic_write_unit_max)" = 0 ] &&
		[ "$(t_info_field "$mnt/f" attr_write_atomic)" = no ]; }; then
		t_fail "statx on $why: $("$ATOMICW" info "$mnt/f" | tr -s ' ' | tr '\n' ';')"
	fi
	t_log "$why: statx answers with zero limits and no attribute; a valid write:"
	probe EOPNOTSUPP "$mnt/f" -b "$bs" -o 0
	[ "$(counter "$name" atomic_writes)" -eq 0 ] || t_fail "REQ_ATOMIC reached $why"
	umount "$mnt" || t_fail "umount $mnt failed"
}
no_atomic plain "a device without atomic writes"
[ "$bs" -eq 4096 ] ||
	no_atomic small "a device whose atomic unit (8k) is below the block size" \
		atomic_unit_min=4096 atomic_unit_max=8192
t_pass "statx, accepted writes (one REQ_ATOMIC bio each) and every refusal as specified"
