#!/bin/bash
# Buffered writes to untorn files beyond the writeback race (the buffered
# part of the series), each beside the same probe on a mount with the
# nountorn option, which must behave as a kernel without untorn writes:
#   short copy: a write whose copy from user space stops after the first 4k
#   of a 16k block and keeps stopping (fail_usercopy fault injection,
#   kernel/tests/untornprobe.c) while the file is fsynced and the power
#   cut.  Untorn: the write fails with EFAULT and the device keeps the old
#   block.  nountorn: the 4k is committed, the write spins until the
#   injection is lifted, and the device keeps the block half new (the
#   control: the probe bites);
#   non-blocking write: pwritev2(RWF_NOWAIT) into a block under writeback
#   (tornblk captures its data 50 ms a page).  Untorn: EAGAIN at once, and a
#   blocking write then waits for the writeback (the block was under it);
#   the same write through io_uring: io_uring_submit returns at once (its
#   non-blocking first try gives up, a worker waits) and the write
#   completes after the writeback.  nountorn: no stable writes, the write
#   is done without waiting;
#   buffered RWF_ATOMIC of one block: untorn, taken (and statx says so with
#   STATX_WRITE_ATOMIC_BUF); with a source whose last page faults, EFAULT
#   and the block unchanged.  nountorn: EOPNOTSUPP, statx says no;
#   the switch: untorn_buffered_bytes and untorn_metadata_bytes are 16384
#   untorn and 0 with nountorn, which /proc/mounts shows; with nountorn no
#   write reaches the device as REQ_ATOMIC.
# Each device tears plain writes in 4k and keeps REQ_ATOMIC writes of
# 4k-16k whole (lbs-atomic-wb), under 16k XFS.
# vm: timeout=600
# test: untorn-buffered kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs od
PROBE=/lbs/build/kernel/tests/untornprobe
[ -x "$PROBE" ] || t_fail "$PROBE is missing (build the kernel/tests helpers)"
t_tornblk_load
[ -d /sys/kernel/debug/fail_usercopy ] ||
	t_fail "no /sys/kernel/debug/fail_usercopy: the kernel lacks CONFIG_FAULT_INJECTION_USERCOPY"
bs=16384
off=$((3 * bs)) # the block probed, inside the file
# Long enough that a debug guest's CPU-bound work (an io_uring submit that
# starts a worker: 10 ms alone, 4x that on a busy host) stays well below
# the wait for one block's writeback (4 pages: 200 ms); sleeps keep time.
dma_us=50000

# setup NAME OPTS [ATTR=VALUE...]: a device and 16k XFS mounted with OPTS
# (empty: the defaults) at /mnt/NAME, with a 1 MiB file f; sets UNTORN and
# META (the two sysfs attributes).
setup() {
	local name=$1 opts=$2
	shift 2
	t_tornblk_create "$name" size_mb=512 logical_block_size=4096 physical_block_size=4096 \
		pawu=4096 atomic_unit_min=4096 atomic_unit_max=16384 seed=5 "$@" >/dev/null
	t_mkfs_xfs "/dev/$name" "$bs" -s size=4096
	t_mount "/dev/$name" "/mnt/$name" "$opts"
	UNTORN=$(cat "/sys/fs/xfs/$name/untorn_buffered_bytes") || t_fail "$name: no untorn_buffered_bytes"
	META=$(cat "/sys/fs/xfs/$name/untorn_metadata_bytes") || t_fail "$name: no untorn_metadata_bytes"
	dd if=/dev/zero of="/mnt/$name/f" bs=1M count=1 conv=fsync status=none ||
		t_fail "$name: preparing the file failed"
}

# field LINE KEY: KEY's value in the probe's key=value line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }

# shortcopy NAME OPTS: sets OUT (the probe's line), HEAD and TAIL (the byte
# values of the block's first 4k and the rest after the cut).
shortcopy() {
	local name=$1
	setup "$name" "$2"
	OUT=$("$PROBE" shortcopy "/mnt/$name/f" "$off" "$bs" "$TB_CFG/$name/power") ||
		t_fail "$name: untornprobe shortcopy failed: $OUT"
	t_log "$name: $OUT"
	[ "$(field "$OUT" cut)" = yes ] || t_fail "$name: the power was not cut"
	umount "/mnt/$name" || t_fail "umount after the cut failed"
	t_tornblk_on "$name"
	t_mount "/dev/$name" "/mnt/$name"
	HEAD=$(t_bytes_of "/mnt/$name/f" "$off" 4096)
	TAIL=$(t_bytes_of "/mnt/$name/f" $((off + 4096)) $((bs - 4096)))
	t_log "$name: after the cut the block's first 4k hold [$HEAD], the rest [$TAIL] (65 old, 66 new)"
	umount "/mnt/$name"
	t_tornblk_remove "$name"
}

# --- short copy -----------------------------------------------------------
shortcopy scoff nountorn
[ "$UNTORN $META" = "0 0" ] || t_fail "nountorn: untorn_buffered_bytes $UNTORN, untorn_metadata_bytes $META (want 0 0)"
if ! { [ "$(field "$OUT" spun)" = yes ] && [ "$HEAD" = "66 " ] && [ "$TAIL" = "65 " ]; }; then
	t_fail "control: on a nountorn mount the short copy did not leave the block half new ($OUT; head [$HEAD] tail [$TAIL]): the probe does not bite"
fi
shortcopy scon ""
[ "$UNTORN $META" = "16384 16384" ] || t_fail "untorn: untorn_buffered_bytes $UNTORN, untorn_metadata_bytes $META (want 16384 16384)"
if ! { [ "$HEAD" = "65 " ] && [ "$TAIL" = "65 " ]; }; then
	t_fail "untorn: a copy that stopped short left the block [$HEAD] [$TAIL] on the device (want all old, 65)"
fi
if ! { [ "$(field "$OUT" write)" = -1 ] && [ "$(field "$OUT" errno)" = EFAULT ] && [ "$(field "$OUT" spun)" = no ]; }; then
	t_fail "untorn: the write of a block whose copy stops short must fail with EFAULT at once ($OUT)"
fi

# --- non-blocking writes, and what reaches the device as REQ_ATOMIC -----------
for name in nwon nwoff; do
	opts=
	[ "$name" = nwon ] || opts=nountorn
	setup "$name" "$opts" dma_delay_us=$dma_us
	shown=no
	! grep -q "^/dev/$name /mnt/$name xfs .*nountorn" /proc/mounts || shown=yes
	want=no
	[ -z "$opts" ] || want=yes
	[ "$shown" = "$want" ] ||
		t_fail "$name: /proc/mounts does not say what was mounted: $(grep "/mnt/$name" /proc/mounts)"
	out=$("$PROBE" nowait "/mnt/$name/f" "$off" "$bs") || t_fail "$name: untornprobe nowait failed: $out"
	t_log "$name: $out"
	write=$(field "$out" write) us=$(field "$out" us) wait_us=$(field "$out" blocking_us)
	if [ "$name" = nwon ]; then
		# EAGAIN is the answer; at once means well before the 4 pages of
		# the block's capture (200 ms and more) are done.
		if ! { [ "$write" = -1 ] && [ "$(field "$out" errno)" = EAGAIN ] && [ "$us" -lt $((2 * dma_us)) ]; }; then
			t_fail "untorn: RWF_NOWAIT into a block under writeback must answer EAGAIN at once ($out)"
		fi
		[ "$wait_us" -ge "$dma_us" ] ||
			t_fail "untorn: the blocking write after it did not wait (${wait_us} us): the block was not under writeback, the probe proves nothing"
		# io_uring: its non-blocking first try meets the same wait; the
		# submitting call must not (a submit that waited would last as long
		# as the write), the write completes after the writeback.
		submit_us=$(field "$out" uring_submit_us) done_us=$(field "$out" uring_done_us)
		{ [ "$submit_us" -lt $((2 * dma_us)) ] && [ $((2 * submit_us)) -lt "$done_us" ]; } ||
			t_fail "untorn: io_uring_submit of a write into a block under writeback waited for it ($out)"
		[ "$done_us" -ge "$dma_us" ] ||
			t_fail "untorn: io_uring writes completed at once: the block was not under writeback, the probe proves nothing ($out)"
		[ "$(t_tornblk_stat "$name" atomic_writes)" -gt 0 ] || t_fail "untorn: no REQ_ATOMIC write reached the device"
		t_probe_expect ok "/mnt/$name/f" -b "$bs" -o $((5 * bs)) --buffered -s 77
		t_probe_expect EFAULT "/mnt/$name/f" -b "$bs" -o $((5 * bs)) --buffered -s 88 --fault-tail
		[ "$(t_bytes_of "/mnt/$name/f" $((5 * bs)) "$bs")" = "77 " ] ||
			t_fail "untorn: a buffered RWF_ATOMIC write whose source faults changed the block: [$(t_bytes_of "/mnt/$name/f" $((5 * bs)) "$bs")]"
		[ "$(t_info_field "/mnt/$name/f" attr_write_atomic_buf)" = yes ] || t_fail "untorn: statx does not offer buffered atomic writes"
	else
		t_probe_expect EOPNOTSUPP "/mnt/$name/f" -b "$bs" -o $((5 * bs)) --buffered -s 77
		[ "$(t_info_field "/mnt/$name/f" attr_write_atomic_buf)" = no ] || t_fail "nountorn: statx offers buffered atomic writes"
		if ! { [ "$write" = 4096 ] && [ "$us" -lt "$dma_us" ]; }; then
			t_fail "nountorn: RWF_NOWAIT without stable writes must be done at once ($out)"
		fi
		atomic=$(t_tornblk_stat "$name" atomic_writes)
		[ "$atomic" = 0 ] || t_fail "nountorn: $atomic REQ_ATOMIC writes reached the device (data or metadata)"
	fi
	umount "/mnt/$name"
	t_tornblk_remove "$name"
done
t_pass "a short copy commits nothing of its block on untorn XFS (half of it with nountorn), RWF_NOWAIT gets EAGAIN instead of waiting for writeback, nountorn turns the untorn writes and their sysfs report off"
