#!/bin/bash
# A loop device's logical block size raised while the device is open
# (LOOP_SET_BLOCK_SIZE, and LOOP_CONFIGURE on a device opened unbound):
# the page cache's block size must follow it up, so that buffered reads
# through descriptors opened before the change never send bios below a
# logical block (the device rejects those: EIO).
# vm: mem=1024 timeout=300
# test: loop-blocksize kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require losetup blockdev dd truncate
img=/tmp/loopbs.img
truncate -s 64M "$img"

# check LOOPDEV FD WHAT: block size at least 16k, buffered reads work both
# through a new descriptor and through FD, opened before the change.
check() {
	local lo=$1 fd=$2 what=$3 ss bs
	ss=$(blockdev --getss "$lo")
	[ "$ss" = 16384 ] || t_fail "$what: logical block size $ss, not 16384"
	dd if="$lo" of=/dev/null bs=16k count=64 status=none ||
		t_fail "$what: buffered read failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	dd of=/dev/null bs=16k count=64 status=none <&"$fd" ||
		t_fail "$what: buffered read through the descriptor opened before failed"
	bs=$(blockdev --getbsz "$lo")
	[ "$bs" -ge 16384 ] || t_fail "$what: block size $bs stayed below the 16k logical block"
	t_log "$what: logical block $ss, block size $bs, buffered reads work"
}

lo=$(losetup --find --show --sector-size 4096 "$img") || t_fail "losetup --sector-size 4096 failed"
exec 3<"$lo" # opened at 4k logical blocks: the page cache's block size is 4k
losetup --sector-size 16384 "$lo" || t_fail "LOOP_SET_BLOCK_SIZE 16384 refused"
check "$lo" 3 "LOOP_SET_BLOCK_SIZE 4k -> 16k"
exec 3<&-
losetup -d "$lo" || t_fail "losetup -d $lo failed"

lo=$(losetup --find) || t_fail "no free loop device"
exec 4<"$lo" # an unbound device, opened before it is configured
losetup --sector-size 16384 "$lo" "$img" || t_fail "LOOP_CONFIGURE with 16k sectors refused"
check "$lo" 4 "LOOP_CONFIGURE 16k on an open device"
exec 4<&-
losetup -d "$lo" || t_fail "losetup -d $lo failed"
t_pass "the page cache's block size follows a raised logical block size"
