#!/bin/bash
# hold_flush parks flushes (an fsync waits) until released or cut; a cut
# fails the parked flush.  cut_rewind_to makes a cut act as if right after
# that write number: later cached writes are lost whole, earlier ones tear
# as usual (all kept here: persist_pct 100).
# test: tornblk.hold-rewind kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
dev=$(t_tornblk_create hold size_mb=16 persist_pct=100)
blk() { # blk N BYTE: write block N (4k) filled with BYTE, O_DIRECT
	printf "%4096s" "" | tr ' ' "$2" | dd of="$dev" bs=4k seek="$1" oflag=direct conv=notrunc status=none
}
check() { # check N BYTE: block N holds BYTE
	[ "$(dd if="$dev" bs=4k skip="$1" count=1 iflag=direct status=none | tr -d "$2" | wc -c)" -eq 0 ]
}

# Release: a parked fsync completes.
echo 1 >"$TB_CFG/hold/hold_flush"
blk 0 a
(rc=0; sync "$dev" 2>/dev/null || rc=$?; echo "rc=$rc" >/tmp/fsync1) &
sleep 1
[ ! -e /tmp/fsync1 ] || t_fail "fsync finished while flushes were held"
[ "$(t_tornblk_stat hold held_now)" -ge 1 ] || t_fail "no flush parked"
echo 0 >"$TB_CFG/hold/hold_flush"
wait
[ "$(cat /tmp/fsync1)" = rc=0 ] || t_fail "released fsync: $(cat /tmp/fsync1)"

# Rewind: writes 1..10 cached, cut as if after the 4th of them.
echo 1 >"$TB_CFG/hold/hold_flush"
w0=$(t_tornblk_stat hold writes)
for i in $(seq 1 10); do blk "$i" b; done
(rc=0; sync "$dev" 2>/dev/null || rc=$?; echo "rc=$rc" >/tmp/fsync2) &
sleep 1
echo $((w0 + 4)) >"$TB_CFG/hold/cut_rewind_to"
t_tornblk_cut hold
wait
[ -s /tmp/fsync2 ] || t_fail "the fsync parked at the cut did not return"
[ "$(cat /tmp/fsync2)" != rc=0 ] || t_fail "the fsync parked at the cut succeeded"
[ "$(t_tornblk_stat hold cut_writes)" -eq 4 ] || t_fail "cut_writes $(t_tornblk_stat hold cut_writes), want 4"
[ "$(t_tornblk_stat hold cut_rewound)" -eq 6 ] || t_fail "cut_rewound $(t_tornblk_stat hold cut_rewound), want 6"
[ "$(cat "$TB_CFG/hold/hold_flush")" = 0 ] || t_fail "the cut left hold_flush set"
t_tornblk_on hold
check 0 a || t_fail "the released, flushed block 0 was lost"
for i in 1 2 3 4; do check "$i" b || t_fail "block $i (before the rewind point) was lost"; done
for i in 5 6 7 8 9 10; do check "$i" '\0' || t_fail "block $i (after the rewind point) persisted"; done
t_tornblk_remove hold
t_pass "held flushes wait and fail at a cut; the rewind kept writes 1-4 of 10"
