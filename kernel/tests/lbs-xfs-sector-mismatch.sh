#!/bin/bash
# An XFS filesystem whose sector size is smaller than the device's logical
# block size is refused: mkfs.xfs will not make one, and the kernel will not
# mount a 16k-block XFS made with 512-byte sectors once the device presents
# 4096-byte logical blocks.  Uses two loop devices over one backing file.
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh
t_require mkfs.xfs losetup

img=/tmp/xfs.img
truncate -s 1G "$img"
lo4k=$(losetup --find --show --sector-size 4096 "$img") || t_fail "losetup --sector-size 4096 failed"
trap 'losetup -D' EXIT
t_log "$lo4k: logical block size $(blockdev --getss "$lo4k")"
[ "$(blockdev --getss "$lo4k")" -eq 4096 ] || t_fail "$lo4k does not present 4096-byte sectors"

t_expect_fail "mkfs.xfs -b size=16k -s size=512 on a 4k-sector device" \
	mkfs.xfs -f -b size=16k -s size=512 "$lo4k"
grep -qi 'sector' <<<"$T_OUTPUT" || t_fail "mkfs.xfs refused without naming the sector size: $T_OUTPUT"

losetup -d "$lo4k"
lo512=$(losetup --find --show --sector-size 512 "$img")
t_mkfs_xfs "$lo512" 16k -s size=512
losetup -d "$lo512"
lo4k=$(losetup --find --show --sector-size 4096 "$img")
dmesg -C
t_expect_fail "mount of a 512-byte-sector XFS on a 4k-sector device" \
	mount -t xfs "$lo4k" /mnt
msg=$(dmesg)
t_log "kernel said: $(grep XFS <<<"$msg" | tr '\n' ' ')"
grep -q 'device supports 4096 byte sectors (not 512)' <<<"$msg" ||
	t_fail "the kernel refused the mount without the expected sector-size message"
t_pass "sector size mismatch refused"
