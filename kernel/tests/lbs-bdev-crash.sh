#!/bin/bash
# Crash loop on a device with 16k logical blocks (the LBS patches): plain
# 64k O_DIRECT writes (no RWF_ATOMIC), power cut with writes in the cache,
# power on, verify.  The device persists whole 16k sectors, so a 64k write
# may come back torn between its sectors but never inside one, and nothing
# fsynced is lost.  Control: the same load on 4k sectors (pawu 4k) tears
# inside 16k pieces, so the check can fail.
# Usage: lbs-bdev-crash.sh [CYCLES] (default 4)
# vm: timeout=900
# test: lbs-bdev-crash -- 4
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
cycles=${1:-4}
unit=16384

# cycle NAME SEED LBS: one write/cut/verify round; sets cut_writes, kept,
# dropped (tornblk's cut counters), torn and torn_units (from verify).
cycle() {
	local name=$1 seed=$2 lbs=$3 dev rc=0
	dev=$(t_tornblk_create "$name" size_mb=64 cache_mb=128 logical_block_size="$lbs" \
		physical_block_size="$unit" pawu="$lbs" seed="$seed")
	"$ATOMICW" write "$dev" --journal "/tmp/$name.j" -b 64k -q 8 -c 1200 --fsync-every 300 \
		--seed "$seed" >/tmp/write.out 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || t_fail "atomicw write on $dev failed ($rc): $(tail -n 3 /tmp/write.out)"
	t_tornblk_cut "$name"
	cut_writes=$(t_tornblk_stat "$name" cut_writes)
	kept=$(t_tornblk_stat "$name" cut_units_persisted)
	dropped=$(t_tornblk_stat "$name" cut_units_dropped)
	t_tornblk_on "$name"
	t_verify "$dev" "/tmp/$name.j" --unit "$unit"
	torn=$(t_verify_count torn)
	torn_units=$(t_verify_count torn-units)
	[ -n "$torn_units" ] || t_fail "atomicw verify printed no torn-units count: $T_VERIFY_OUT"
	[ "$(t_verify_count corrupt)" -eq 0 ] || t_fail "$name: corrupt blocks after the cut"
	[ "$(t_verify_count missing-durable)" -eq 0 ] || t_fail "$name: fsynced data lost at the cut"
	t_log "$name (lbs $lbs, seed $seed): $cut_writes writes cached at the cut," \
		"$kept units kept, $dropped dropped; $torn torn 64k blocks, $torn_units torn 16k pieces"
	t_tornblk_remove "$name"
}

total_torn=0 total_kept=0 total_dropped=0
for seed in $(seq 1 "$cycles"); do
	cycle s16 "$seed" 16384
	[ "$torn_units" -eq 0 ] || t_fail "a 16k-sector device tore $torn_units 16k pieces (seed $seed)"
	total_torn=$((total_torn + torn))
	total_kept=$((total_kept + kept))
	total_dropped=$((total_dropped + dropped))
done
# Without torn 64k blocks the 16k check would have looked at nothing.
[ "$total_torn" -gt 0 ] || t_fail "no 64k write was torn in $cycles cycles: the cuts tested nothing"
{ [ "$total_kept" -gt 0 ] && [ "$total_dropped" -gt 0 ]; } ||
	t_fail "the cuts did not both keep and drop units ($total_kept kept, $total_dropped dropped)"

cycle s4 1 4096
[ "$torn_units" -gt 0 ] || t_fail "control: 4k sectors never tore a 16k piece (the check cannot fail)"
t_pass "$cycles cuts on 16k sectors: $total_torn torn 64k blocks, no 16k piece torn"
