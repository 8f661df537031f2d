#!/bin/bash
# Repeated module load/unload and cut/power cycles leak nothing: in each
# of 8 rounds a 32 MiB device is filled and torn three times; after each cut
# the cache is empty and I/O fails until power on; after the device is
# removed the module holds no page and no cache record (tornblk/live); it
# unloads every round; and no splat is printed (run-vm checks the console).
# MemAvailable is reported too, as a coarse cross-check.
# test: tornblk.cycles
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
round() {
	local dev c
	dev=$(t_tornblk_create cyc size_mb=32 seed="$1")
	for c in 1 2 3; do
		"$ATOMICW" write "$dev" --journal /tmp/cyc.j -b 16k -q 4 -c 2500 --seed "$c" >/dev/null ||
			t_fail "write failed in round $1 cycle $c"
		t_tornblk_cut cyc
		[ "$(t_tornblk_stat cyc cache_bytes)" -eq 0 ] || t_fail "cache not empty after a cut"
		# While powered off every I/O fails.
		if dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null; then
			t_fail "a read succeeded on a powered-off device"
		fi
		t_tornblk_on cyc
	done
	t_tornblk_remove cyc
	live=$(tr '\n' ' ' </sys/kernel/debug/tornblk/live)
	[ "$live" = "pages 0 records 0 " ] || t_fail "round $1: device removed but module still holds: $live"
	rmmod tornblk || t_fail "rmmod tornblk failed in round $1"
}

round 0
sync
echo 3 >/proc/sys/vm/drop_caches
before=$(avail)
for r in 1 2 3 4 5 6 7 8; do round "$r"; done
sync
echo 3 >/proc/sys/vm/drop_caches
after=$(avail)
t_log "MemAvailable before ${before} kB, after 8 rounds ${after} kB (each round allocates ~64 MiB)"
# A leak of the page stores would cost ~64 MiB per round, 512 MiB in all.
[ $((before - after)) -lt 131072 ] || t_fail "MemAvailable fell by $((before - after)) kB over 8 rounds"
t_pass "no leak over 8 load/cut/unload rounds"
