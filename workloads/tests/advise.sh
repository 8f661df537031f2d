#!/bin/bash
# atomicw advise on the storage of every crash configuration in configs.tsv
# (protected, control and probe roles; mount options included) and on
# traps built on purpose: the verdict (exit status) and the check that
# names the cause.  A PostgreSQL data directory made by initdb sits on each,
# so the page size comes from pg_controldata.
#   baseline, unsafe (4k XFS): UNSAFE, an 8k page spans two blocks;
#   lbs-only (16k XFS, no atomic unit): UNSAFE, the device keeps nothing whole,
#   and a note that XFS's 16k metadata blocks exceed the 4k physical block;
#   lbs-atomic, lbs-atomic-wb: SAFE, and the kernel writes metadata blocks
#   atomically (untorn_metadata_bytes); lbs-atomic-off and
#   lbs-atomic-wb-off (mounted with nountorn): UNSAFE, the option named;
#   traps: 4k XFS on an atomic device (UNSAFE, page spans blocks; no metadata
#   note: its blocks fit the physical block), XFS on a
#   loop device over a file (UNSAFE, the loop layer named), a 32k page on
#   16k blocks (UNSAFE); and 16k XFS on 16k sectors, one logical block per
#   block (SAFE: the kernel keeps those untorn too); InnoDB on lbs-atomic
#   through the page cache (SAFE) and with O_DIRECT (UNKNOWN: no RWF_ATOMIC,
#   also as JSON); a tablespace on another filesystem (UNKNOWN).  Layers
#   below the filesystem, on a device of 4k sectors that keeps 4k..16k whole
#   within 16k boundaries (an NVMe drive with an atomic boundary): a
#   partition that starts on a 16k boundary (SAFE) and one that starts 8k
#   past it (UNSAFE, the partition named); dm-linear 4k into the device
#   (UNSAFE: the offset from its table, and this kernel's device-mapper
#   passes no atomic limits up); dm-striped with 4k chunks over 4k-sector
#   devices (UNSAFE, the chunk named).
# vm: mem=2048 timeout=900
# test: advise
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

t_require mkfs.xfs losetup runuser sfdisk dmsetup
t_tornblk_load
mnt=/mnt/advise
# pg_cluster: pgdir, a cluster initdb'd once by the build of WL_PG_BS-byte
# pages (configs.tsv's pg_bs): advise reads the page size from it.
pg_cluster() {
	pgdir=/tmp/advise-pg-$WL_PG_BS
	[ ! -d "$pgdir" ] || return 0
	wl_pg_build
	as_pg "$PGBIN/initdb" -k -A trust -U postgres -D "$pgdir" >/tmp/advise-initdb.log 2>&1 ||
		{ cat /tmp/advise-initdb.log >&2; t_fail "initdb ($PGBIN) failed"; }
}
WL_PG_BS=8192 pg_cluster

# advise DIR WANT-EXIT CHECK RESULT TEXT [-- ARGS...]: run atomicw advise
# on DIR; its exit status must be WANT-EXIT (0 SAFE, 2 UNSAFE) and the
# line of CHECK must have RESULT and contain TEXT.
advise() {
	local dir=$1 want=$2 check=$3 result=$4 text=$5 out rc=0
	shift 5
	[ "${1:-}" != -- ] || shift
	out=$("$ATOMICW" advise "$dir" "$@" 2>&1) || rc=$?
	grep -q '^verdict: ' <<<"$out" || t_fail "advise $dir printed no verdict: $out"
	if [ "$rc" -ne "$want" ]; then
		printf '%s\n' "$out" >&2
		t_fail "advise $dir $*: exit $rc, want $want"
	fi
	if ! grep -E "^  $result +$check +" <<<"$out" | grep -qF -- "$text"; then
		printf '%s\n' "$out" >&2
		t_fail "advise $dir: no '$result $check' line saying '$text'"
	fi
	t_log "  $(grep '^verdict: ' <<<"$out") ($result $check: ...$text...)"
}

# advise_lacks DIR CHECK [ARGS...]: advise on DIR prints no line for CHECK.
advise_lacks() {
	local dir=$1 check=$2 out
	shift 2
	out=$("$ATOMICW" advise "$dir" "$@" 2>&1) || true
	if grep -qE "^  [a-zA-Z]+ +$check +" <<<"$out"; then
		printf '%s\n' "$out" >&2
		t_fail "advise $dir: a '$check' line where none belongs"
	fi
	t_log "  no $check line"
}

# fs NAME XFS-BS SECTOR TORNBLK-ATTRS...: a fresh device and XFS on $mnt
# (mounted with $FS_MOUNT's options, if any) holding a copy of the initdb
# directory.
fs() {
	local name=$1 bs=$2 ss=$3
	shift 3
	t_tornblk_create "$name" size_mb=512 logical_block_size="$ss" "$@" >/dev/null
	t_mkfs_xfs "/dev/$name" "$bs" -s size="$ss"
	t_mount "/dev/$name" "$mnt" "${FS_MOUNT:-}"
	cp -a "$pgdir" "$mnt/data" || t_fail "copying the cluster onto $name failed"
}

unfs() {
	umount "$mnt" || t_fail "umount $mnt failed"
	t_tornblk_remove "$1"
}

mapfile -t cfgs <<<"$(wl_configs protected protected-untorn control probe)" # the variants share their storage
for cfg in "${cfgs[@]}"; do
	wl_config "$cfg"
	pg_cluster
	attrs=(physical_block_size="$WL_PAWU" pawu="$WL_PAWU")
	[ "$WL_ATOMIC" -eq 0 ] || attrs+=(atomic_unit_min=4096 atomic_unit_max="$WL_ATOMIC")
	FS_MOUNT=
	[ "$WL_MOUNT" = - ] || FS_MOUNT=$WL_MOUNT
	t_log "$cfg: XFS $WL_XFS_BS, pawu $WL_PAWU, atomic unit $WL_ATOMIC, mount options $WL_MOUNT, $WL_PG_BS-byte pages"
	fs adv "$WL_XFS_BS" 4096 "${attrs[@]}"
	# What advise must say follows from the storage (configs.tsv's
	# columns), not from the name: a page in smaller blocks spans them; a
	# block as large as the page or larger is safe exactly when the device
	# writes it atomically.
	if [ "$WL_XFS_BS" -lt "$WL_PG_BS" ]; then
		advise "$mnt/data" 2 block-holds-page FAIL "$WL_PG_BS-byte page spans $WL_XFS_BS-byte blocks"
	elif [ "$WL_ATOMIC" -eq 0 ]; then
		advise "$mnt/data" 2 device-atomic FAIL "adv reports no atomic writes"
		[ "$WL_PAWU" -ge "$WL_XFS_BS" ] ||
			advise "$mnt/data" 2 xfs-metadata note "larger than adv's $WL_PAWU-byte physical block"
	elif [[ ,$WL_MOUNT, == *,nountorn,* ]]; then
		# the kernel's switch: the storage could, the mount says no
		advise "$mnt/data" 2 buffered-writeback FAIL "mounted with nountorn"
		advise "$mnt/data" 2 xfs-metadata note "mounted with nountorn"
	elif [ "$WL_ATOMIC" -ge "$WL_XFS_BS" ]; then
		advise "$mnt/data" 0 buffered-writeback ok "is $WL_XFS_BS"
		advise "$mnt/data" 0 xfs-metadata ok "$WL_XFS_BS-byte metadata blocks atomically"
	else
		t_fail "no expectation for $cfg (atomic unit $WL_ATOMIC below its $WL_XFS_BS-byte blocks): add one here"
	fi
	if [ "$cfg" = lbs-atomic ]; then
		advise "$mnt/data" 2 block-holds-page FAIL "32768-byte page spans" -- --page-size 32k
		advise "$mnt/data" 0 buffered-writeback ok "is 16384" -- --innodb --buffered --page-size 16k
		advise "$mnt/data" 3 direct-writes unknown "without RWF_ATOMIC" -- --innodb --direct \
			--page-size 16k
		rc=0
		out=$("$ATOMICW" advise "$mnt/data" --innodb --direct --page-size 16k --json -) || rc=$?
		if [ "$rc" -ne 3 ] || ! grep -q '"verdict": "UNKNOWN"' <<<"$out"; then
			t_fail "advise --innodb --direct --json: exit $rc, not UNKNOWN: $out"
		fi
		t_log "  --innodb --direct --json: UNKNOWN"
	fi
	unfs adv
done
FS_MOUNT= # the traps below mount plainly
WL_PG_BS=8192 pg_cluster # and copy an 8k cluster

t_log "trap: 4k XFS on a device that keeps 4k..16k whole"
fs adv 4096 4096 physical_block_size=16384 pawu=16384 atomic_unit_min=4096 atomic_unit_max=16384
advise "$mnt/data" 2 block-holds-page FAIL "8192-byte page spans 4096-byte blocks"
advise_lacks "$mnt/data" xfs-metadata # 4k blocks inside 16k physical ones
unfs adv

t_log "16k XFS on 16k sectors (a block is one logical block)"
fs adv 16384 16384 physical_block_size=16384 pawu=16384 atomic_unit_min=16384 atomic_unit_max=65536
advise "$mnt/data" 0 buffered-writeback ok "is 16384"
t_log "trap: a tablespace on another filesystem"
mkdir -p /tmp/advise-ts "$mnt/data/pg_tblspc"
ln -s /tmp/advise-ts "$mnt/data/pg_tblspc/16385" || t_fail "linking a tablespace failed"
advise "$mnt/data" 3 other-filesystems unknown "pg_tblspc/16385 -> /tmp/advise-ts"
rm "$mnt/data/pg_tblspc/16385"

t_log "trap: 16k XFS on a loop device over a file"
truncate -s 400m "$mnt/img" || t_fail "creating $mnt/img failed"
loop=$(losetup -f --show "$mnt/img") || t_fail "losetup failed"
t_mkfs_xfs "$loop" 16384 -s size=4096
mkdir -p /mnt/advise-loop
t_mount "$loop" /mnt/advise-loop
cp -a "$pgdir" /mnt/advise-loop/data || t_fail "copying the cluster onto $loop failed"
advise /mnt/advise-loop/data 2 loop note "$mnt/img"
umount /mnt/advise-loop || t_fail "umount of the loop filesystem failed"
losetup -d "$loop" || t_fail "losetup -d $loop failed"
unfs adv
# layer DEV NAME: 16k XFS on DEV mounted on /mnt/advise-NAME with the cluster.
layer() {
	t_mkfs_xfs "$1" 16384 -s size=4096
	t_mount "$1" "/mnt/advise-$2"
	cp -a "$pgdir" "/mnt/advise-$2/data" || t_fail "copying the cluster onto $1 failed"
}

# An atomic device of 4k sectors with 16k boundaries, and partitions.
atomic=(physical_block_size=16384 pawu=16384 atomic_unit_min=4096 atomic_unit_max=16384
	atomic_boundary=16384)
t_tornblk_create adv size_mb=1024 logical_block_size=4096 "${atomic[@]}" partitions=1 >/dev/null
# In 4k sectors: one partition at 8 MiB, one 8k past a 16k boundary (XFS
# needs 300 MB).
printf 'label: dos\nunit: sectors\nstart=2048, size=81920, type=83\nstart=83970, size=81920, type=83\n' |
	sfdisk -q /dev/adv >/tmp/advise-sfdisk.log 2>&1 ||
	{ cat /tmp/advise-sfdisk.log >&2; t_fail "sfdisk on /dev/adv failed"; }
t_wait_bdev /dev/adv1
t_wait_bdev /dev/adv2
t_log "partition on a 16k boundary (start $(cat /sys/class/block/adv1/start) sectors of 512)"
layer /dev/adv1 p1
advise /mnt/advise-p1/data 0 partition-offset ok "a multiple of 16384"
t_log "trap: a partition 8k past a 16k boundary (start $(cat /sys/class/block/adv2/start))"
layer /dev/adv2 p2
advise /mnt/advise-p2/data 2 partition-offset FAIL "adv2 starts at byte $((83970 * 4096)), not a multiple of 16384"
umount /mnt/advise-p1 /mnt/advise-p2 || t_fail "umount of the partitions failed"

# dm_node NAME: the /dev/dm-N node of a mapped device.
dm_node() { echo "/dev/$(dmsetup info -c --noheadings -o blkdevname "$1")"; }

t_log "trap: dm-linear 4k into the atomic device"
dmsetup create --noudevsync advlin --table "0 $((320 * 2048)) linear /dev/adv 8" ||
	t_fail "dmsetup create advlin failed"
lin=$(dm_node advlin)
t_wait_bdev "$lin"
layer "$lin" lin
advise /mnt/advise-lin/data 2 dm-offset FAIL "at byte 4096, not a multiple of 16384"
advise /mnt/advise-lin/data 2 device-atomic FAIL "does not pass the atomic write limits up"
umount /mnt/advise-lin || t_fail "umount of $lin failed"
dmsetup remove --noudevsync advlin || t_fail "dmsetup remove advlin failed"

t_tornblk_remove adv
# 4k physical blocks here: the kernel drops a chunk smaller than the physical
# block from the stacked limits (chunk_sectors 0 in sysfs).
t_log "trap: dm-striped with 4k chunks over two devices that keep 4k..16k whole"
atomic4k=(physical_block_size=4096 pawu=4096 atomic_unit_min=4096 atomic_unit_max=16384)
t_tornblk_create adv size_mb=512 logical_block_size=4096 "${atomic4k[@]}" >/dev/null
t_tornblk_create advb size_mb=512 logical_block_size=4096 "${atomic4k[@]}" >/dev/null
dmsetup create --noudevsync advstr --table "0 $((2 * 256 * 2048)) striped 2 8 /dev/adv 0 /dev/advb 0" ||
	t_fail "dmsetup create advstr failed"
str=$(dm_node advstr)
t_wait_bdev "$str"
layer "$str" str
advise /mnt/advise-str/data 2 chunk FAIL "splits I/O every 4096 bytes"
advise /mnt/advise-str/data 2 dm-offset ok "1 linear/striped target, each starting and mapping"
umount /mnt/advise-str || t_fail "umount of $str failed"
dmsetup remove --noudevsync advstr || t_fail "dmsetup remove advstr failed"
t_tornblk_remove advb
t_tornblk_remove adv
t_pass "advise gave the expected verdict and cause on ${#cfgs[@]} configurations, 8 traps, 16k sectors, an aligned partition and InnoDB"
