#!/bin/bash
# ext4 has no FS_LBS (the LBS patches), so it gets no block size above the page
# size.  An ext4 with 4k blocks copied onto a 16k-sector device must not
# mount, and the kernel must say why; the same image on a 4k-sector device
# mounts, so the refusal is about the device.  ext2 mounts through
# mount_bdev(), which has no fs_context to carry the message: its refusal
# must be explained in the kernel log too.  And now that the block layer
# takes 16k block sizes, an ext4 made with 16k blocks must still be refused
# on an ordinary device, as before the patches.
# vm: timeout=300
# test: lbs-ext4-refused
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require mkfs.ext4 mkfs.ext2 dd

img=/tmp/ext4.img
page=$(getconf PAGESIZE)

# put_image DEV: copy the ext4 image onto DEV.
put_image() {
	dd if="$img" of="$1" bs=1M oflag=direct status=none || t_fail "copying the image to $1 failed"
}

truncate -s 64M "$img"
mkfs.ext4 -q -F -b 4096 "$img" || t_fail "mkfs.ext4 on $img failed"
ok=$(t_tornblk_create small size_mb=64 logical_block_size=4096 pawu=4096)
put_image "$ok"
t_mount "$ok" /mnt/ext4
umount /mnt/ext4
t_log "the image mounts on a 4096-byte-sector device"

big=$(t_tornblk_create big size_mb=64 logical_block_size=16384 physical_block_size=16384 \
	pawu=16384)
# refused FS: the image on $big must not mount as FS, and the kernel must
# say why.
refused() {
	local msg
	put_image "$big"
	dmesg -C
	t_expect_fail "mount of $1 (4k blocks) on a 16k-sector device" mount -t "$1" "$big" /mnt/ext4
	msg=$(dmesg)
	t_log "kernel said: $(tr '\n' ' ' <<<"$msg")"
	grep -q "big: $1 does not support 16384-byte sectors (above the page size)" <<<"$msg" ||
		t_fail "the kernel refused the $1 mount without saying why"
	if grep -q '^/dev/big ' /proc/mounts; then t_fail "/dev/big is mounted as $1 after all"; fi
}
refused ext4

# The same through mount_bdev(): an ext2 image that mounts on 4k sectors.
mkfs.ext2 -q -F -b 4096 "$img" || t_fail "mkfs.ext2 on $img failed"
put_image "$ok"
mount -t ext2 "$ok" /mnt/ext4 || t_fail "the ext2 image did not mount on 4k sectors: $(dmesg | tail -n 3)"
umount /mnt/ext4
refused ext2

# mkfs.ext4 with 4k blocks on the device itself must not succeed either.
if mkfs.ext4 -q -F -b 4096 "$big" >/tmp/mkfs.out 2>&1; then
	t_expect_fail "mount of an ext4 made on the 16k-sector device" mount -t ext4 "$big" /mnt/ext4
else
	t_log "mkfs.ext4 -b 4096 on $big refused: $(tr '\n' ' ' </tmp/mkfs.out | cut -c1-160)"
fi

# 16k ext4 blocks on a 4k-sector device: still not mountable on $page-byte pages.
mkfs.ext4 -q -F -b 16384 "$img" >/dev/null 2>&1 || t_fail "mkfs.ext4 -b 16384 on $img failed"
put_image "$ok"
dmesg -C
t_expect_fail "mount of ext4 with 16k blocks on $page-byte pages" mount -t ext4 "$ok" /mnt/ext4
t_log "kernel said: $(dmesg | tr '\n' ' ')"
dmesg | grep -q 'EXT4-fs (small): bad block size 16384' ||
	t_fail "ext4 with 16k blocks was refused for another reason than its block size"
t_pass "ext4 and ext2 refuse 16k sectors with a clear message, ext4 16k blocks as before"
