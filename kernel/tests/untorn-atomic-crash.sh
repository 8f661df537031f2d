#!/bin/bash
# Buffered RWF_ATOMIC writes through power cuts (the buffered part of the
# series).  16k XFS on a device that tears plain writes in 4k pieces and
# keeps REQ_ATOMIC writes whole (lbs-atomic-wb); atomicw write --buffered
# --atomic stamps random 16k blocks of a file, fsyncing every 500, so that
# the last few hundred are still dirty in the page cache when it ends.  Then
# the device holds flushes, syncfs writes those blocks back into its cache,
# and the power goes.  After power on and log recovery every block must be
# one generation (atomicw verify: no torn, no corrupt block), nothing
# fsynced may be lost, and xfs_repair -n must find the filesystem clean.
# Control: the same cycle on a nountorn mount with plain buffered writes:
# the cut must tear blocks, or the check could not have failed.
# Usage: untorn-atomic-crash.sh [CYCLES] (default 3, plus 2 control cycles)
# vm: timeout=900
# test: untorn-atomic-crash -- 3
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

t_require mkfs.xfs
cycles=${1:-3}
case $cycles in '' | *[!0-9]* | 0) t_fail "CYCLES must be a positive number, got '$cycles'" ;; esac
bs=16384

# cycle NAME SEED MOUNT-OPTS WRITE-ARGS...: one write/cut/verify cycle on a
# new device; sets TORN (torn blocks verify found), TORN_WRITES (cached
# writes the cut tore, tornblk's count) and ATOMIC (REQ_ATOMIC writes the
# device took while its flushes were held).
cycle() {
	local name=$1 seed=$2 opts=$3 mnt=/mnt/$1 dev rc=0 a0 w0 syncer
	shift 3
	dev=$(t_tornblk_create "$name" size_mb=512 logical_block_size=4096 physical_block_size=4096 \
		pawu=4096 atomic_unit_min=4096 atomic_unit_max=$bs seed="$seed")
	t_mkfs_xfs "$dev" "$bs" -s size=4096
	t_mount "$dev" "$mnt" "$opts"
	# Written in full first: the cycle's writes overwrite blocks in place.
	dd if=/dev/zero of="$mnt/f" bs=1M count=32 conv=fsync status=none || t_fail "$name: preparing $mnt/f failed"
	"$ATOMICW" write "$mnt/f" --journal "/tmp/$name.j" -b 16k -q 8 -c 2300 --fsync-every 500 \
		--buffered --seed "$seed" "$@" >"/tmp/$name.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || t_fail "$name: atomicw write $* failed ($rc): $(tail -n 3 "/tmp/$name.out")"
	echo 1 >"$TB_CFG/$name/hold_flush"
	a0=$(t_tornblk_stat "$name" atomic_writes)
	w0=$(t_tornblk_stat "$name" writes)
	sync -f "$mnt/f" 2>/dev/null &
	syncer=$!
	t_tornblk_settle "$name"
	ATOMIC=$(($(t_tornblk_stat "$name" atomic_writes) - a0))
	[ $(($(t_tornblk_stat "$name" writes) - w0)) -ge 100 ] ||
		t_fail "$name: only $(($(t_tornblk_stat "$name" writes) - w0)) writes reached the device while its flushes were held: the cut would test nothing"
	t_tornblk_cut "$name"
	TORN_WRITES=$(t_tornblk_stat "$name" cut_writes_torn)
	t_reap_within 10 "$syncer" "$name: syncfs after the cut"
	umount "$mnt" || t_fail "$name: umount after the cut failed"
	t_tornblk_on "$name"
	t_mount "$dev" "$mnt"
	t_verify "$mnt/f" "/tmp/$name.j"
	TORN=$(t_verify_count torn)
	[ "$(t_verify_count corrupt)" -eq 0 ] || t_fail "$name: corrupt blocks after the cut"
	[ "$(t_verify_count missing-durable)" -eq 0 ] || t_fail "$name: fsynced blocks lost at the cut"
	t_log "$name (seed $seed, $(head -n 1 "/tmp/$name.out" | cut -d, -f4 | sed "s/^ *//")):" \
		"$(t_tornblk_stat "$name" cut_writes) writes cached at the cut ($ATOMIC REQ_ATOMIC), $TORN_WRITES torn by it; $TORN torn blocks"
	umount "$mnt" || t_fail "$name: umount failed"
	t_xfs_check "$dev"
	t_tornblk_remove "$name"
}

atomic_total=0
for seed in $(seq 1 "$cycles"); do
	cycle ua "$seed" "" --atomic
	[ "$TORN" -eq 0 ] || t_fail "cycle $seed: $TORN blocks written with buffered RWF_ATOMIC came back torn"
	[ "$ATOMIC" -gt 0 ] || t_fail "cycle $seed: no REQ_ATOMIC write reached the device while its flushes were held"
	atomic_total=$((atomic_total + ATOMIC))
done

torn_total=0 torn_writes=0
for seed in 1 2; do
	cycle uc "$seed" nountorn
	[ "$ATOMIC" -eq 0 ] || t_fail "control cycle $seed: $ATOMIC REQ_ATOMIC writes on a nountorn mount"
	torn_total=$((torn_total + TORN)) torn_writes=$((torn_writes + TORN_WRITES))
done
[ "$torn_total" -gt 0 ] ||
	t_fail "control: plain buffered writes on a nountorn mount came back whole after 2 cuts ($torn_writes writes torn by the cuts): the check cannot fail"
t_pass "$cycles cuts with buffered RWF_ATOMIC 16k writes in flight ($atomic_total REQ_ATOMIC writes cached): no torn block; control (nountorn, plain): $torn_total torn blocks"
