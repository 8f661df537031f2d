#!/bin/bash
# cut_after_writes: the power fails right after the N-th further write is
# acknowledged.  Exactly N writes succeed, the next I/O fails, power reads 0,
# and after power on fsynced data is intact while the unflushed tail was
# torn as usual.  With cut_min_bytes, writes shorter than it do not count.
# test: tornblk.armed-cut kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
dev=$(t_tornblk_create armed size_mb=64 pawu=4096)
echo 700 >"$TB_CFG/armed/cut_after_writes" || t_fail "cannot arm cut_after_writes"
[ "$(cat "$TB_CFG/armed/cut_after_writes")" = 700 ] || t_fail "cut_after_writes does not read back"
rc=0
"$ATOMICW" write "$dev" --journal /tmp/armed.j -b 16k -q 1 -c 2000 --fsync-every 100 \
	>/tmp/armed.out 2>&1 || rc=$?
[ "$rc" -eq 3 ] || t_fail "atomicw write should end with an I/O error (3), got $rc: $(tail -n 3 /tmp/armed.out)"
[ "$(cat "$TB_CFG/armed/power")" = 0 ] || t_fail "the armed cut did not switch the power off"
[ "$(cat "$TB_CFG/armed/cut_after_writes")" = 0 ] || t_fail "cut_after_writes did not count down to 0"
writes=$(t_tornblk_stat armed writes)
# Flushes carry no data, so only data writes count: 700, not one more.
[ "$writes" -eq 700 ] || t_fail "expected exactly 700 writes before the cut, device saw $writes"
[ "$(t_tornblk_stat armed io_errors)" -gt 0 ] || t_fail "I/O after the cut did not fail"
cached=$(t_tornblk_stat armed cut_writes)
t_log "cut after write 700: $cached writes were cached, $(t_tornblk_stat armed cut_writes_torn) torn"
[ "$cached" -gt 0 ] || t_fail "nothing was cached at the armed cut"
t_tornblk_on armed
t_verify "$dev" /tmp/armed.j
[ "$(t_verify_count missing-durable)" = 0 ] || t_fail "fsynced data lost at the armed cut"
[ "$(t_verify_count corrupt)" = 0 ] || t_fail "corrupt blocks after the armed cut"
echo 0 >"$TB_CFG/armed/cut_after_writes"

# cut_min_bytes 16k: twenty 4k writes pass, the first 16k write is the last.
echo 16384 >"$TB_CFG/armed/cut_min_bytes" || t_fail "cannot set cut_min_bytes"
echo 1 >"$TB_CFG/armed/cut_after_writes" || t_fail "cannot arm cut_after_writes again"
w0=$(t_tornblk_stat armed writes)
for i in $(seq 20); do
	dd if=/dev/zero of="$dev" bs=4k seek="$i" count=1 oflag=direct conv=notrunc status=none ||
		t_fail "4k write $i failed: it should not count toward a cut of writes of 16k or more"
done
[ "$(cat "$TB_CFG/armed/power")" = 1 ] || t_fail "4k writes set off a cut armed for writes of 16k"
dd if=/dev/zero of="$dev" bs=16k seek=8 count=1 oflag=direct conv=notrunc status=none ||
	t_fail "the 16k write that sets off the cut should itself succeed"
[ "$(cat "$TB_CFG/armed/power")" = 0 ] || t_fail "the 16k write did not set off the armed cut"
[ $(($(t_tornblk_stat armed writes) - w0)) -eq 21 ] ||
	t_fail "expected 21 writes up to the cut, device saw $(($(t_tornblk_stat armed writes) - w0))"
t_tornblk_on armed
t_pass "the armed cut struck after exactly 700 writes, and after the first 16k write with cut_min_bytes 16k"
