#!/bin/bash
# The page-cache writeback race on 16k XFS over a 16k atomic unit.
# tornblk captures write data after submission (dma_delay_us), as a real
# device's DMA does.  atomicw race writes the first 8k half of a 16k block,
# starts its writeback and rewrites the second half for 20 ms (a hot
# page); then a power cut, and every 8k half must be whole.  Without
# stable writes the second half can change while its block is being
# captured, and the device keeps that mixed image whole: halves of sectors
# from two writes (torn), and, with the writer on another CPU copying into
# the page while tornblk reads it, sectors mixed inside (corrupt: a stamp
# whose checksum fails).  Those must appear (the control: the race is real
# in the model), and a half fsynced before is lost only as one of them.
# With stable_writes the page cache waits for writeback: none of either.
# vm: mem=3072 timeout=900
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

# run NAME STABLE: prints the number of mixed halves (torn + corrupt).
run() {
	local name=$1 mnt=/mnt/$1 mixed
	t_tornblk_create "$name" size_mb=512 logical_block_size=4096 physical_block_size=16384 \
		pawu=16384 atomic_unit_min=4096 atomic_unit_max=16384 seed=11 \
		dma_delay_us=1000 stable_writes="$2" >/dev/null
	t_mkfs_xfs "/dev/$name" 16384 -s size=4096
	t_mount "/dev/$name" "$mnt"
	dd if=/dev/zero of="$mnt/f" bs=1M count=4 conv=fsync status=none || t_fail "preparing $mnt/f failed"
	"$ATOMICW" race "$mnt/f" --journal "/tmp/$name.j" -b 16k -t 20 --race-us 20000 --seed 3 >&2 ||
		t_fail "atomicw race on $name failed"
	t_log "$name: $(t_tornblk_stat "$name" dma_writes) writes captured after submission"
	t_tornblk_cut "$name"
	umount "$mnt" || t_fail "umount $mnt after the cut failed"
	t_tornblk_on "$name"
	t_mount "/dev/$name" "$mnt"
	t_verify "$mnt/f" "/tmp/$name.j"
	mixed=$(($(t_verify_count torn) + $(t_verify_count corrupt)))
	[ "$(t_verify_count missing-durable)" -le "$mixed" ] ||
		t_fail "$name: more fsynced halves lost than the race mixed"
	[ "$(t_verify_count lost)" = 0 ] || t_fail "$name: halves lost outright"
	umount "$mnt"
	t_tornblk_remove "$name"
	echo "$mixed"
}

unstable=$(run racy 0)
t_log "no stable writes: $unstable torn or corrupt 8k halves"
[ "$unstable" -gt 0 ] ||
	t_fail "control: no torn or corrupt half without stable writes (the model shows no race)"
stable=$(run stable 1)
t_log "stable writes: $stable torn or corrupt 8k halves"
[ "$stable" -eq 0 ] || t_fail "$stable torn or corrupt halves with stable writes"
t_pass "the writeback race mixed $unstable 8k halves without stable writes and none with them"
