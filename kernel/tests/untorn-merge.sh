#!/bin/bash
# Merged atomic writes on a blk-mq device (the buffered part of the series).
# tornblk takes bios and never merges, so this runs on scsi_debug: 512-byte
# sectors, WRITE ATOMIC(16) of 4k-64k, 16k XFS with its log on another
# device so that the data device sees only the file's blocks.  Untorn
# writeback sends one REQ_ATOMIC bio per 16k block; under the flusher's plug
# and in the I/O scheduler adjacent ones merge into one request, written as
# one atomic write.  A merged atomic write must be one an application could
# have asked for: a power of two no larger than the unit max (64k here) and
# naturally aligned.  Four dirty blocks starting 0, 16k, 32k and 48k past a
# 64k boundary go as requests like 32k+32k or 16k+32k+16k (merges do
# happen), never as a 64k or 32k request that straddles a boundary of its
# own size (64k at 16k, as the merge code without the check makes).
# scsi_debug logs every command it receives (opts=1): each WRITE ATOMIC(16)
# must be such a write, and the data must read back after the cache is
# dropped.
# vm: timeout=600
# test: untorn-merge kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs xfs_io cmp modprobe
bs=16384 unit=65536 sectors_per_block=$((16384 / 512))

modprobe scsi_debug dev_size_mb=320 sector_size=512 physblk_exp=3 atomic_wr=1 \
	atomic_wr_gran=8 atomic_wr_align=8 atomic_wr_max_length=$((unit / 512)) ||
	t_fail "modprobe scsi_debug with atomic writes failed"
dev='' tries=50
while [ -z "$dev" ] && [ "$tries" -gt 0 ]; do
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && dev=${d##*/}
	done
	[ -n "$dev" ] || sleep 0.1
	tries=$((tries - 1))
done
[ -n "$dev" ] || t_fail "scsi_debug's disk did not appear"
t_wait_bdev "/dev/$dev"
q=/sys/block/$dev/queue
t_log "/dev/$dev: atomic writes $(cat "$q"/atomic_write_unit_min_bytes)-$(cat "$q"/atomic_write_unit_max_bytes) bytes," \
	"boundary $(cat "$q"/atomic_write_boundary_bytes), scheduler $(cat "$q"/scheduler)"
[ "$(cat "$q"/atomic_write_unit_max_bytes)" = "$unit" ] ||
	t_fail "/dev/$dev offers atomic writes up to $(cat "$q"/atomic_write_unit_max_bytes) bytes, the test needs $unit"

logdev=$(t_tornblk_create mlog size_mb=96 logical_block_size=4096 physical_block_size=4096)
t_mkfs_xfs "/dev/$dev" "$bs" -s size=4096 -l logdev="$logdev",size=64m
t_mount "/dev/$dev" /mnt/m "logdev=$logdev"
[ "$(cat "/sys/fs/xfs/$dev/untorn_buffered_bytes")" = "$bs" ] ||
	t_fail "untorn_buffered_bytes is $(cat "/sys/fs/xfs/$dev/untorn_buffered_bytes"), want $bs"
f=/mnt/m/f
head -c $((16 * bs)) /dev/urandom >/tmp/merge.ref || t_fail "making the data failed"
cp /tmp/merge.ref "$f" || t_fail "writing $f failed"
sync -f "$f" || t_fail "syncfs failed"

# The first extent: file block 0 at device sector $phys, at least 8 blocks long.
read -r fstart fend phys pend <<<"$(xfs_io -r -c bmap "$f" | sed -n 's/^[[:space:]]*0: \[\([0-9]*\)\.\.\([0-9]*\)\]: \([0-9]*\)\.\.\([0-9]*\)$/\1 \2 \3 \4/p')"
if [ -z "${pend:-}" ] || [ "$fstart" != 0 ] || [ $((fend + 1)) -lt $((8 * sectors_per_block)) ]; then
	t_fail "$f's first extent is not 8 blocks long: $(xfs_io -r -c bmap "$f" | tr '\n' ' ')"
fi
t_log "$f: file block 0 at device sector $phys"

OPTS=/sys/bus/pseudo/drivers/scsi_debug/opts
# atomic_cmds: "SECTOR LENGTH" (512-byte units) of every WRITE ATOMIC(16)
# scsi_debug logged (opts=1 prints each command's CDB in hex).
atomic_cmds() {
	dmesg | sed -n 's/.*scsi_debug: tag=[^,]*, cmd \(9c .*\)$/\1/p' |
		while read -r -a b; do
			echo "$((16#${b[2]}${b[3]}${b[4]}${b[5]}${b[6]}${b[7]}${b[8]}${b[9]})) $((16#${b[12]}${b[13]}))"
		done
}

# run OFFSET: rewrite the four blocks whose first lies OFFSET bytes past a
# 64k boundary on the device and write them back under the flusher's plug
# (syncfs); every atomic write command must be a power of two of at most
# the unit max, naturally aligned, and together they must be the four blocks.
merged=0
run() {
	local off=$1 first sector len list='' total=0
	first=0
	while [ $((((phys + first * sectors_per_block) * 512) % unit)) != "$off" ]; do
		first=$((first + 1))
		[ "$first" -lt 4 ] || t_fail "no block of the extent lies $off bytes past a 64k boundary"
	done
	head -c $((4 * bs)) /dev/urandom >/tmp/merge.new
	dd if=/tmp/merge.new of=/tmp/merge.ref bs="$bs" seek="$first" conv=notrunc status=none
	dmesg -C
	echo 1 >"$OPTS" || t_fail "cannot make scsi_debug log its commands"
	dd if=/tmp/merge.new of="$f" bs="$bs" seek="$first" conv=notrunc status=none ||
		t_fail "rewriting blocks $first-$((first + 3)) failed"
	sync -f "$f" || t_fail "syncfs failed: $(dmesg | tail -n 3)"
	echo 0 >"$OPTS"
	while read -r sector len; do
		[ -n "$sector" ] || continue
		list="$list $((len / 2))k@$(((sector * 512 % unit) / 1024))k"
		total=$((total + len))
		[ "$len" -le $((sectors_per_block)) ] || merged=$((merged + 1))
		if [ $((len & (len - 1))) != 0 ] || [ $((sector % len)) != 0 ] || [ $((len * 512)) -gt "$unit" ]; then
			t_fail "offset $off: an atomic write of $((len * 512)) bytes at device byte $((sector * 512)) is not a naturally aligned power of two of at most $unit (commands, size@offset in 64k:$list)"
		fi
	done <<<"$(atomic_cmds)"
	t_log "four blocks $off bytes past a 64k boundary (file blocks $first-$((first + 3))): atomic writes (size@offset in 64k):$list"
	[ "$total" = $((4 * sectors_per_block)) ] ||
		t_fail "offset $off: the atomic writes cover $((total * 512)) bytes, want the four blocks ($((4 * bs)))"
}

run 0
run "$bs"
run $((2 * bs))
run $((3 * bs))
[ "$merged" -gt 0 ] || t_fail "no two atomic writes were ever merged: the test saw nothing"

echo 3 >/proc/sys/vm/drop_caches
cmp -s /tmp/merge.ref "$f" || t_fail "$f does not read back as written"
! dmesg | grep -qiE "I/O error|atomic write .* failing" || t_fail "the kernel reported failed writes: $(dmesg | grep -iE 'I/O error|atomic write' | head -n 3)"
umount /mnt/m || t_fail "umount failed"
xfs_repair -n -l "$logdev" "/dev/$dev" >/tmp/merge-repair.log 2>&1 ||
	{ cat /tmp/merge-repair.log >&2; t_fail "xfs_repair -n found problems"; }
t_pass "atomic writes merge on a blk-mq device only into naturally aligned requests of at most the unit max; the data reads back"
