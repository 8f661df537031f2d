#!/bin/bash
# An XFS filesystem whose sector size is smaller than the device's logical
# block size is refused: mkfs.xfs will not make one, and the kernel will not
# mount a 16k-block XFS made with small sectors once the device presents
# larger logical blocks.  Uses two loop devices over one backing file.
# Usage: lbs-xfs-sector-mismatch.sh [SECTOR] (default 4096: 512-byte XFS
# sectors on 4k; with 16384, above the page size, 4k XFS sectors on 16k)
# vm: timeout=300
# test: lbs-xfs-sector-mismatch
# test: lbs-xfs-sector-mismatch.16k -- 16384
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require mkfs.xfs losetup

big=${1:-4096}
small=512
[ "$big" -le 4096 ] || small=4096
img=/tmp/xfs.img
truncate -s 1G "$img"
lobig=$(losetup --find --show --sector-size "$big" "$img") || t_fail "losetup --sector-size $big failed"
trap 'losetup -D' EXIT
t_log "$lobig: logical block size $(blockdev --getss "$lobig")"
[ "$(blockdev --getss "$lobig")" -eq "$big" ] || t_fail "$lobig does not present $big-byte sectors"

t_expect_fail "mkfs.xfs -b size=16k -s size=$small on a $big-byte-sector device" \
	mkfs.xfs -f -b size=16k -s size="$small" "$lobig"
grep -qi 'sector' <<<"$T_OUTPUT" || t_fail "mkfs.xfs refused without naming the sector size: $T_OUTPUT"

losetup -d "$lobig"
losmall=$(losetup --find --show --sector-size "$small" "$img")
t_mkfs_xfs "$losmall" 16k -s size="$small"
losetup -d "$losmall"
lobig=$(losetup --find --show --sector-size "$big" "$img")
dmesg -C
t_expect_fail "mount of a $small-byte-sector XFS on a $big-byte-sector device" \
	mount -t xfs "$lobig" /mnt
msg=$(dmesg)
t_log "kernel said: $(grep XFS <<<"$msg" | tr '\n' ' ')"
grep -q "device supports $big byte sectors (not $small)" <<<"$msg" ||
	t_fail "the kernel refused the mount without the expected sector-size message"
t_pass "sector size mismatch refused ($small-byte XFS sectors on $big-byte device sectors)"
