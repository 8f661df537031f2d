#!/bin/bash
# Error paths: a write that cannot get memory fails whole; reads then show
# the old data, which is also what survives a cut.  Sizes beyond the
# machine's memory are refused with a message.
# test: tornblk.errors kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
dev=$(t_tornblk_create errs size_mb=16 persist_pct=100)
fail=/sys/kernel/debug/tornblk/fail_allocs
printf '%65536s' "" | tr ' ' o >/tmp/old
printf '%65536s' "" | tr ' ' n >/tmp/new
dd if=/tmp/old of="$dev" bs=64k oflag=direct status=none || t_fail "first write failed"
sync "$dev"
head -c 65536 /dev/zero >/tmp/zero
# try OFFSET-KB N EXPECTED: with the N-th allocation of the write path
# failing, a 64k write at OFFSET fails and the range still reads EXPECTED.
# Over written data the write allocates its data buffer (1) and its cache
# record (2); on a fresh range also 16 pages of the current view (2-17)
# and 16 of the media (18-33) before the record; each fresh case has its
# own range, as a failed write may leave zeroed pages behind.
try() {
	echo "$2" >"$fail"
	if dd if=/tmp/new of="$dev" bs=1k seek="$1" count=64 oflag=direct status=none 2>/dev/null; then
		t_fail "write at ${1}k with allocation $2 failing succeeded"
	fi
	echo 0 >"$fail"
	dd if="$dev" bs=1k skip="$1" count=64 iflag=direct status=none | cmp -s "$3" - ||
		t_fail "a failed write (allocation $2 at ${1}k) left its data readable"
}
try 0 1 /tmp/old
try 0 2 /tmp/old
try 1024 2 /tmp/zero
try 2048 18 /tmp/zero
try 3072 34 /tmp/zero
echo 0 >"$fail"
[ "$(t_tornblk_stat errs alloc_failures)" -ge 1 ] || t_fail "alloc_failures not counted"
t_tornblk_cut errs
t_tornblk_on errs
dd if="$dev" bs=64k count=1 iflag=direct status=none | cmp -s /tmp/old - ||
	t_fail "after the cut the device does not hold the old data"
for k in 1024 2048 3072; do
	dd if="$dev" bs=1k skip=$k count=64 iflag=direct status=none | cmp -s /tmp/zero - ||
		t_fail "after the cut the fresh range at ${k}k is not zero"
done
t_tornblk_remove errs

mkdir "$TB_CFG/big"
dmesg -C
echo 100000000 >"$TB_CFG/big/size_mb" 2>/dev/null && t_fail "size_mb beyond RAM accepted"
dmesg | grep -q "machine's" || t_fail "no message for size_mb beyond RAM: $(dmesg | tail -n 1)"
echo 100000000 >"$TB_CFG/big/cache_mb" 2>/dev/null && t_fail "cache_mb beyond RAM accepted"
rmdir "$TB_CFG/big"
t_pass "failed allocations fail the write whole; sizes are bounded by RAM"
