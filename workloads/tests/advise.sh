#!/bin/bash
# atomicw advise on the storage of every crash configuration in configs.tsv and on
# traps built on purpose: the verdict (exit status) and the check that
# names the cause.  A PostgreSQL data directory made by initdb sits on each,
# so the page size comes from pg_controldata.
#   baseline, unsafe (4k XFS): UNSAFE, an 8k page spans two blocks;
#   lbs-only (16k XFS, no atomic unit): UNSAFE, the device keeps nothing whole;
#   lbs-atomic, lbs-atomic-wb: SAFE;
#   traps: 4k XFS on an atomic device (UNSAFE, page spans blocks), XFS on a
#   loop device over a file (UNSAFE, the loop layer named), a 32k page on
#   16k blocks (UNSAFE); and 16k XFS on 16k sectors, one logical block per
#   block (SAFE: the kernel keeps those untorn too); InnoDB on lbs-atomic
#   through the page cache (SAFE) and with O_DIRECT (UNKNOWN: no RWF_ATOMIC,
#   also as JSON); a tablespace on another filesystem (UNKNOWN).
# vm: mem=2048 timeout=900
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

t_require mkfs.xfs losetup runuser
t_tornblk_load
mnt=/mnt/advise
pgdir=/tmp/advise-pg
as_pg "$PGBIN/initdb" -k -A trust -U postgres -D "$pgdir" >/tmp/advise-initdb.log 2>&1 ||
	{ cat /tmp/advise-initdb.log >&2; t_fail "initdb failed"; }

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

# fs NAME XFS-BS SECTOR TORNBLK-ATTRS...: a fresh device and XFS on $mnt
# holding a copy of the initdb directory.
fs() {
	local name=$1 bs=$2 ss=$3
	shift 3
	t_tornblk_create "$name" size_mb=512 logical_block_size="$ss" "$@" >/dev/null
	t_mkfs_xfs "/dev/$name" "$bs" -s size="$ss"
	t_mount "/dev/$name" "$mnt"
	cp -a "$pgdir" "$mnt/data" || t_fail "copying the cluster onto $name failed"
}

unfs() {
	umount "$mnt" || t_fail "umount $mnt failed"
	t_tornblk_remove "$1"
}

mapfile -t cfgs <<<"$(wl_configs protected control)" # the variants share their storage
for cfg in "${cfgs[@]}"; do
	wl_config "$cfg"
	attrs=(physical_block_size="$WL_PAWU" pawu="$WL_PAWU")
	[ "$WL_ATOMIC" -eq 0 ] || attrs+=(atomic_unit_min=4096 atomic_unit_max="$WL_ATOMIC")
	t_log "$cfg: XFS $WL_XFS_BS, pawu $WL_PAWU, atomic unit $WL_ATOMIC"
	fs adv "$WL_XFS_BS" 4096 "${attrs[@]}"
	case $cfg in
	baseline|unsafe) advise "$mnt/data" 2 block-holds-page FAIL "8192-byte page spans 4096-byte blocks" ;;
	lbs-only) advise "$mnt/data" 2 device-atomic FAIL "adv reports no atomic writes" ;;
	lbs-atomic|lbs-atomic-wb) advise "$mnt/data" 0 buffered-writeback ok "is 16384" ;;
	*) t_fail "no expectation for configuration $cfg: add one here" ;;
	esac
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

t_log "trap: 4k XFS on a device that keeps 4k..16k whole"
fs adv 4096 4096 physical_block_size=16384 pawu=16384 atomic_unit_min=4096 atomic_unit_max=16384
advise "$mnt/data" 2 block-holds-page FAIL "8192-byte page spans 4096-byte blocks"
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
t_pass "advise gave the expected verdict and cause on ${#cfgs[@]} configurations, 5 traps, 16k sectors and InnoDB"
