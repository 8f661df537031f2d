#!/bin/bash
# Merged atomic writes on a blk-mq device (the buffered part of the series).
# tornblk takes bios and never merges, so this runs on scsi_debug: 512-byte
# sectors, 4k physical blocks, WRITE ATOMIC(16), 16k XFS with its log on
# another device so that the data device sees only the file's blocks.
# Untorn writeback sends one REQ_ATOMIC bio per 16k block; under the
# flusher's plug adjacent ones merge into one request, written as one atomic
# write, which must be one the device takes: no larger than the unit max
# (drivers check that: NVMe fails a larger atomic command), whole blocks.
#   unit64k: atomic writes of 4k-64k: four dirty blocks at 0, 16k, 32k and
#     48k past a 64k boundary merge (up to 64k; a merge need not be
#     naturally aligned: neither NVMe nor SCSI asks it of a command, and
#     the atomic boundary, where a device has one, is kept by the existing
#     limits);
#   max48k: a hardware maximum of 48k, whose unit max (the largest power of
#     two) is 32k: no merged command above 32k, although 48k fits the
#     hardware maximum the merge code used to allow.
# scsi_debug logs every command it receives (opts=1); each WRITE
# ATOMIC(16) is checked, and the data must read back after the cache is
# dropped.
# vm: timeout=600
# test: untorn-merge kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs xfs_io cmp modprobe rmmod
bs=16384 sectors_per_block=$((16384 / 512))
OPTS=/sys/bus/pseudo/drivers/scsi_debug/opts
logdev=$(t_tornblk_create mlog size_mb=96 logical_block_size=4096 physical_block_size=4096)

# setup NAME HW-MAX UNIT: scsi_debug with atomic writes of 4k..HW-MAX bytes
# (its unit max must come out as UNIT), 16k XFS on it; sets DEV, F (the
# file, 16 blocks, written and synced) and PHYS (file block 0's sector).
setup() {
	local name=$1 max=$2 unit=$3 tries=50 d q fstart fend pend
	modprobe scsi_debug dev_size_mb=320 sector_size=512 physblk_exp=3 atomic_wr=1 \
		atomic_wr_gran=8 atomic_wr_align=8 atomic_wr_max_length=$((max / 512)) ||
		t_fail "$name: modprobe scsi_debug with atomic writes failed"
	DEV=''
	while [ -z "$DEV" ] && [ "$tries" -gt 0 ]; do
		for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -e "$d" ] && DEV=${d##*/}
		done
		[ -n "$DEV" ] || sleep 0.1
		tries=$((tries - 1))
	done
	[ -n "$DEV" ] || t_fail "$name: scsi_debug's disk did not appear"
	t_wait_bdev "/dev/$DEV"
	q=/sys/block/$DEV/queue
	t_log "$name: /dev/$DEV: atomic writes $(cat "$q"/atomic_write_unit_min_bytes)-$(cat "$q"/atomic_write_unit_max_bytes)" \
		"bytes (hardware max $(cat "$q"/atomic_write_max_bytes)), boundary $(cat "$q"/atomic_write_boundary_bytes)," \
		"scheduler $(cat "$q"/scheduler)"
	[ "$(cat "$q"/atomic_write_unit_max_bytes)" = "$unit" ] ||
		t_fail "$name: /dev/$DEV's atomic unit max is $(cat "$q"/atomic_write_unit_max_bytes), the test needs $unit"
	t_mkfs_xfs "/dev/$DEV" "$bs" -s size=4096 -l logdev="$logdev",size=64m
	t_mount "/dev/$DEV" /mnt/m "logdev=$logdev"
	[ "$(cat "/sys/fs/xfs/$DEV/untorn_buffered_bytes")" = "$bs" ] ||
		t_fail "$name: untorn_buffered_bytes is $(cat "/sys/fs/xfs/$DEV/untorn_buffered_bytes"), want $bs"
	F=/mnt/m/f
	head -c $((16 * bs)) /dev/urandom >/tmp/merge.ref || t_fail "making the data failed"
	cp /tmp/merge.ref "$F" || t_fail "writing $F failed"
	sync -f "$F" || t_fail "syncfs failed"
	# The first extent: file block 0 at device sector PHYS, 8 blocks or more.
	read -r fstart fend PHYS pend <<<"$(xfs_io -r -c bmap "$F" |
		sed -n 's/^[[:space:]]*0: \[\([0-9]*\)\.\.\([0-9]*\)\]: \([0-9]*\)\.\.\([0-9]*\)$/\1 \2 \3 \4/p')"
	if [ -z "${pend:-}" ] || [ "$fstart" != 0 ] || [ $((fend + 1)) -lt $((8 * sectors_per_block)) ]; then
		t_fail "$name: $F's first extent is not 8 blocks long: $(xfs_io -r -c bmap "$F" | tr '\n' ' ')"
	fi
}

teardown() {
	echo 3 >/proc/sys/vm/drop_caches
	cmp -s /tmp/merge.ref "$F" || t_fail "$1: $F does not read back as written"
	! dmesg | grep -qiE "I/O error|atomic write .* failing" ||
		t_fail "$1: the kernel reported failed writes: $(dmesg | grep -iE 'I/O error|atomic write' | head -n 3)"
	umount /mnt/m || t_fail "$1: umount failed"
	xfs_repair -n -l "$logdev" "/dev/$DEV" >/tmp/merge-repair.log 2>&1 ||
		{ cat /tmp/merge-repair.log >&2; t_fail "$1: xfs_repair -n found problems"; }
	rmmod scsi_debug || t_fail "$1: rmmod scsi_debug failed"
}

# atomic_cmds: "SECTOR LENGTH" (512-byte units) of every WRITE ATOMIC(16)
# scsi_debug logged (opts=1 prints each command's CDB in hex).
atomic_cmds() {
	dmesg | sed -n 's/.*scsi_debug: tag=[^,]*, cmd \(9c .*\)$/\1/p' |
		while read -r -a b; do
			echo "$((16#${b[2]}${b[3]}${b[4]}${b[5]}${b[6]}${b[7]}${b[8]}${b[9]})) $((16#${b[12]}${b[13]}))"
		done
}

# run NAME UNIT OFFSET: rewrite the four blocks whose first lies OFFSET
# bytes past a 64k boundary on the device and write them back under the
# flusher's plug (syncfs); every atomic write command must be whole blocks
# of at most UNIT bytes, and together they must be the four blocks.
# MERGED counts commands of more than one block.
MERGED=0
run() {
	local name=$1 unit=$2 off=$3 first sector len list='' total=0
	first=0
	while [ $((((PHYS + first * sectors_per_block) * 512) % 65536)) != "$off" ]; do
		first=$((first + 1))
		[ "$first" -lt 4 ] || t_fail "$name: no block of the extent lies $off bytes past a 64k boundary"
	done
	head -c $((4 * bs)) /dev/urandom >/tmp/merge.new
	dd if=/tmp/merge.new of=/tmp/merge.ref bs="$bs" seek="$first" conv=notrunc status=none
	dmesg -C
	echo 1 >"$OPTS" || t_fail "cannot make scsi_debug log its commands"
	dd if=/tmp/merge.new of="$F" bs="$bs" seek="$first" conv=notrunc status=none ||
		t_fail "$name: rewriting blocks $first-$((first + 3)) failed"
	sync -f "$F" || t_fail "$name: syncfs failed: $(dmesg | tail -n 3)"
	echo 0 >"$OPTS"
	while read -r sector len; do
		[ -n "$sector" ] || continue
		list="$list $((len / 2))k@$(((sector * 512 % 65536) / 1024))k"
		total=$((total + len))
		[ "$len" -le $((sectors_per_block)) ] || MERGED=$((MERGED + 1))
		if [ $((len * 512)) -gt "$unit" ] || [ $((len % sectors_per_block)) != 0 ] ||
			[ $((sector % sectors_per_block)) != 0 ]; then
			t_fail "$name, offset $off: an atomic write of $((len * 512)) bytes at device byte $((sector * 512)): not whole 16k blocks of at most the unit max $unit (commands, size@offset in 64k:$list)"
		fi
	done <<<"$(atomic_cmds)"
	t_log "$name: four blocks $off bytes past a 64k boundary: atomic writes (size@offset in 64k):$list"
	[ "$total" = $((4 * sectors_per_block)) ] ||
		t_fail "$name, offset $off: the atomic writes cover $((total * 512)) bytes, want the four blocks ($((4 * bs)))"
}

setup unit64k 65536 65536
for off in 0 16384 32768 49152; do run unit64k 65536 "$off"; done
[ "$MERGED" -gt 0 ] || t_fail "unit64k: no two atomic writes were ever merged: the test saw nothing"
teardown unit64k

MERGED=0
setup max48k 49152 32768
for off in 0 16384 32768 49152; do run max48k 32768 "$off"; done
[ "$MERGED" -gt 0 ] || t_fail "max48k: no two atomic writes were ever merged: the test saw nothing"
teardown max48k
t_pass "atomic writes merge on a blk-mq device up to the unit max (64k; 32k under a 48k hardware maximum), whole blocks; the data reads back"
