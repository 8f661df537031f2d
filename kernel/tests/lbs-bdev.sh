#!/bin/bash
# A block device whose logical block size is above the page size (the LBS
# patches).  tornblk and loop accept it and report it (blockdev, sysfs,
# st_blksize by path and by descriptor); O_DIRECT below the block size or
# off its alignment is refused; buffered and mmap I/O of any size and
# offset goes through the page cache's large folios and reads back
# identical from the cache, after writeback (O_DIRECT), after the cache is
# dropped (readahead), and after a power cycle.  Sizes above 64k are refused.
# Usage: lbs-bdev.sh LBS (8k..64k)
# vm: timeout=600
# test: lbs-bdev.8k -- 8k
# test: lbs-bdev.16k kernels=default,debug -- 16k
# test: lbs-bdev.64k -- 64k
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require blockdev dd cmp losetup xfs_io numfmt perl

arg=${1:?usage: lbs-bdev.sh LBS (e.g. 16k)}
lbs=$(numfmt --from=iec "${arg^^}") || t_fail "bad block size '$arg'"
page=$(getconf PAGESIZE)
[ "$lbs" -gt "$page" ] || t_fail "this test is for block sizes above the page size ($page)"
span=$((8 << 20)) # the part of the device the test writes and compares
ref=/tmp/ref

dd if=/dev/urandom of="$T_RANDOM" bs=1M count=4 status=none

# fstat_agrees DEV BLKSIZE: fstat() of an open descriptor, the call cp and
# stdio make, reports the st_blksize that stat() by path did.  perl's
# stat of a handle is glibc's fstat(), i.e. fstatat(AT_EMPTY_PATH), which the
# kernel answers from vfs_fstat(); coreutils' "stat -" uses statx() and
# would not see the difference.
fstat_agrees() {
	local f
	f=$(perl -e 'my @s = stat(STDIN) or die "fstat: $!\n"; print "$s[11]\n"' <"$1") ||
		t_fail "fstat of $1 failed"
	[ "$f" -eq "$2" ] || t_fail "$1: fstat says st_blksize $f, stat by path $2"
}

# geometry DEV NAME: the kernel must report lbs everywhere.
geometry() {
	local dev=$1 name=$2 v
	v=$(blockdev --getss "$dev")
	[ "$v" -eq "$lbs" ] || t_fail "$dev: blockdev --getss says $v, expected $lbs"
	v=$(cat "/sys/block/$name/queue/logical_block_size")
	[ "$v" -eq "$lbs" ] || t_fail "$dev: sysfs logical_block_size is $v, expected $lbs"
	v=$(stat -c %o "$dev")
	[ "$v" -ge "$lbs" ] || t_fail "$dev: st_blksize $v is below the logical block size $lbs"
	fstat_agrees "$dev" "$v"
	t_log "$dev: logical block $(blockdev --getss "$dev"), physical $(blockdev --getpbsz "$dev"), st_blksize $v"
}

# w DEV OFFSET LENGTH SRC-SKIP [direct]: the same write to DEV and to $ref.
w() { t_write_pair "$1" "$ref" "$2" "$3" "$4" "${5:-}"; }

# same DEV WHAT [iflag]: the first $span bytes of DEV equal $ref.
same() {
	local flag=${3:+iflag=$3}
	dd if="$1" of=/tmp/readback bs=1M count=$((span >> 20)) status=none ${flag:+"$flag"} ||
		t_fail "reading $1 back (${3:-buffered}) failed"
	cmp /tmp/readback "$ref" || t_fail "$1 differs from the reference: $2"
	t_log "$1 matches the reference: $2"
}

# refuse_direct WHAT DD-ARGS...: an O_DIRECT transfer that must fail EINVAL.
refuse_direct() {
	local what=$1
	shift
	t_expect_fail "$what" dd "$@" status=none
	grep -q 'Invalid argument' <<<"$T_OUTPUT" || t_fail "$what: not EINVAL: $T_OUTPUT"
}

# exercise DEV NAME: the whole I/O check on one device.
exercise() {
	local dev=$1 name=$2
	geometry "$dev" "$name"
	rm -f "$ref"
	w "$dev" 0 1M 0 direct
	truncate -s "$span" "$ref"
	dd if=/dev/zero of="$dev" bs=1M count=$((span >> 20)) seek=1 oflag=direct status=none ||
		t_fail "zeroing $dev failed"

	# O_DIRECT: whole blocks work, anything smaller or misaligned is EINVAL.
	w "$dev" $((lbs * 2)) $((lbs * 2)) 4096 direct
	refuse_direct "O_DIRECT write of $page bytes" if="$T_RANDOM" of="$dev" bs="$page" count=1 \
		oflag=direct conv=notrunc
	refuse_direct "O_DIRECT write of $lbs bytes at offset $page" if="$T_RANDOM" of="$dev" \
		bs="$lbs" count=1 oflag=direct,seek_bytes seek="$page" conv=notrunc
	refuse_direct "O_DIRECT read of $((lbs / 2)) bytes" if="$dev" of=/dev/null \
		bs=$((lbs / 2)) count=1 iflag=direct

	# Buffered writes of every shape: inside one block, across block
	# boundaries, page-sized at a page offset, many blocks, unaligned ends.
	w "$dev" 100 12345 0
	w "$dev" $((lbs - 1000)) 3000 777
	w "$dev" $((lbs * 5 + page)) "$page" 9999
	w "$dev" $((lbs * 7)) "$lbs" 20000
	w "$dev" $((lbs * 9 + 17)) $((lbs * 5 + 333)) 31337
	w "$dev" $((span - 70001)) 70000 123456
	# mmap writes through the block device's page cache.
	for f in "$dev" "$ref"; do
		xfs_io -c "mmap -w 0 $((lbs * 4))" -c "mwrite -S 0x5a $((lbs + 100)) $((lbs + 50))" \
			-c "msync -s 0 $((lbs * 4))" -c munmap "$f" >/dev/null ||
			t_fail "mmap write to $f failed"
	done
	same "$dev" "buffered reads from the page cache"
	# BLKFLSBUF: write back and drop the page cache.
	blockdev --flushbufs "$dev" || t_fail "flushing $dev failed"
	same "$dev" "O_DIRECT reads after writeback" direct
	echo 3 >/proc/sys/vm/drop_caches
	same "$dev" "buffered reads after dropping the page cache"
	# Page-sized reads of a cold cache read whole blocks underneath.
	echo 3 >/proc/sys/vm/drop_caches
	dd if="$dev" of=/tmp/readback bs="$page" count=$((span / page)) status=none ||
		t_fail "page-sized reads of $dev failed"
	cmp /tmp/readback "$ref" || t_fail "page-sized buffered reads differ from the reference"
	# An O_DIRECT write over cached blocks is seen by buffered readers.
	w "$dev" $((lbs * 9)) $((lbs * 2)) 55555 direct
	same "$dev" "buffered reads after an O_DIRECT write over cached blocks"
}

# An ordinary 512-byte-sector disk keeps st_blksize = the page size.
v=$(stat -c %o /dev/vda)
[ "$v" -eq "$page" ] || t_fail "/dev/vda ($(blockdev --getss /dev/vda)-byte sectors): st_blksize $v, expected $page"
fstat_agrees /dev/vda "$v"

dev=$(t_tornblk_create big size_mb=64 logical_block_size="$lbs" physical_block_size="$lbs" \
	pawu="$lbs")
exercise "$dev" big
# fsync on the device flushes its write cache (BLKFLSBUF does not).
sync "$dev" || t_fail "fsync of $dev failed"
t_tornblk_cut big
[ "$(t_tornblk_stat big cut_writes)" -eq 0 ] ||
	t_fail "$(t_tornblk_stat big cut_writes) writes were still cached after fsync"
t_tornblk_on big
t_wait_bdev "$dev"
same "$dev" "O_DIRECT reads after fsync and a power cycle" direct
t_tornblk_remove big

truncate -s 64M /tmp/loop.img
lo=$(losetup --find --show --sector-size "$lbs" /tmp/loop.img) ||
	t_fail "losetup --sector-size $lbs refused"
exercise "$lo" "${lo#/dev/}"
losetup -d "$lo"

# The limit: 128k logical blocks are refused.
t_expect_fail "losetup --sector-size 128k" losetup --find --show --sector-size 131072 /tmp/loop.img
t_pass "$lbs-byte logical blocks on $page-byte pages: tornblk and loop"
