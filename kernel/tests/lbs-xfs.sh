#!/bin/bash
# LBS XFS base (already in 6.12): an XFS filesystem with fs blocks of
# BLOCKSIZE bytes on a 4k-page kernel takes buffered and O_DIRECT writes of
# unaligned file sizes, truncate, hole punching and mmap writes; the data
# reads back identical after a remount and xfs_repair -n finds it clean.
# With SECTORSIZE the filesystem lives on a tornblk device with logical
# blocks of that size (above the page size needs the LBS patches) and is
# made with -s size=SECTORSIZE; O_DIRECT then works in whole sectors.
# Usage: lbs-xfs.sh BLOCKSIZE [SECTORSIZE]
#        (without SECTORSIZE it needs one scratch disk of >= 1G)
# vm: disk=2G mem=3072 timeout=600
# test: lbs-xfs.4k -- 4k
# test: lbs-xfs.8k -- 8k
# test: lbs-xfs.16k -- 16k
# test: lbs-xfs.32k -- 32k
# test: lbs-xfs.64k -- 64k
# test: lbs-xfs.16k-on-16k-sectors kernels=default,debug -- 16k 16k
# test: lbs-xfs.32k-on-32k-sectors -- 32k 32k
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require mkfs.xfs xfs_io xfs_repair dd fallocate cmp

arg=${1:?usage: lbs-xfs.sh BLOCKSIZE (e.g. 16k)}
bs=$(numfmt --from=iec "${arg^^}") || t_fail "bad block size '$arg'"
mkfs_args=()
if [ -n "${2:-}" ]; then
	ss=$(numfmt --from=iec "${2^^}") || t_fail "bad sector size '$2'"
	dev=$(t_tornblk_create lbsdev size_mb=1024 logical_block_size="$ss" \
		physical_block_size="$ss" pawu="$ss")
	mkfs_args=(-s size="$ss")
else
	dev=$(t_scratch_disk 1)
fi
ss=$(blockdev --getss "$dev")
mnt=/mnt/scratch
ref=/tmp/ref
page=$(getconf PAGESIZE)
t_log "page size $page, fs block size $bs, device $dev (logical block $ss)"

t_mkfs_xfs "$dev" "$bs" "${mkfs_args[@]}"
t_mount "$dev" "$mnt"
seen=$(stat -f -c %S "$mnt")
[ "$seen" -eq "$bs" ] || t_fail "statfs reports block size $seen, mkfs asked for $bs"
t_log "mounted: statfs block size $seen; fs block / page = $((seen / page))x"

mkdir -p "$ref"
dd if=/dev/urandom of="$T_RANDOM" bs=1M count=4 status=none

# op FILE ...: apply the same operation to the file on XFS and to its
# reference copy on tmpfs (always buffered there).
w() { t_write_pair "$mnt/$1" "$ref/$1" "$2" "$3" "$4" "${5:-}"; } # FILE OFF LEN SKIP [direct]
both() { "$@" "$mnt/$F"; "$@" "$ref/$F"; }

# Buffered writes with sizes that are neither sector nor block aligned.
F=buffered
w $F 0 12345 0
w $F 70001 5000 99
w $F $((bs * 3 + 17)) 777 4242

# O_DIRECT writes: sector aligned, not fs-block aligned (unless the sector
# is the block), leaving a file size that is not a multiple of the fs block.
F=direct
w $F 0 $((bs * 4)) 0 direct
w $F $((bs + ss)) $((ss * 3)) 8192 direct
w $F $((bs * 9 + ss * 2)) $((bs + ss * 5)) 65536 direct
both truncate -s $((bs * 10 + 3333))

# Punch a block-aligned hole and check that space was given back.
F=punch
w $F 0 $((bs * 16)) 0 direct
sync
before=$(stat -c %b "$mnt/$F")
both fallocate -p -o $((bs * 4)) -l $((bs * 8))
sync
after=$(stat -c %b "$mnt/$F")
[ "$after" -lt "$before" ] || t_fail "punching 8 blocks freed nothing ($before -> $after 512-byte blocks)"
t_log "punch hole: $before -> $after sectors allocated"
# An unaligned punch zeroes the partial blocks at both ends.
both fallocate -p -o $((bs * 13 + 100)) -l $((bs + 1000))

# mmap writes into a file that is not a multiple of the page size, then
# grow it with truncate and write the new tail.
F=mmap
w $F 0 $((bs * 2 + 300)) 1000
for f in "$mnt/$F" "$ref/$F"; do
	xfs_io -c "mmap -w 0 $((bs * 2 + 300))" -c "mwrite -S 0x5a 100 $((bs + 50))" \
		-c "msync -s 0 $((bs * 2 + 300))" -c "munmap" "$f" >/dev/null ||
		t_fail "mmap write to $f failed"
done
both truncate -s $((bs * 5))
w $F $((bs * 4 + 7)) 4000 555

# Everything must read back the same before and after a remount.
check_all() {
	local f
	for f in buffered direct punch mmap; do
		cmp "$mnt/$f" "$ref/$f" || t_fail "$f differs from its reference ($1)"
	done
	t_log "all files match their references ($1)"
}
check_all "page cache"
umount "$mnt"
t_xfs_check "$dev"
t_mount "$dev" "$mnt"
check_all "after remount"
# O_DIRECT reads go to the device without the page cache.
dd if="$mnt/direct" of=/tmp/direct.read bs=$((bs * 11)) iflag=direct status=none ||
	t_fail "O_DIRECT read of direct failed"
cmp /tmp/direct.read "$ref/direct" || t_fail "O_DIRECT read differs from reference"
umount "$mnt"
t_xfs_check "$dev"
[ -z "${2:-}" ] || t_tornblk_remove lbsdev
t_pass "XFS with $bs-byte blocks and $ss-byte sectors on $page-byte pages"
