#!/bin/bash
# Data that was fsynced before a power cut is always there afterwards:
# thousands of 4k blocks over several seeds, with writes still in the
# volatile cache at the cut (so the cut had something to tear).
# test: tornblk.fsync-survives
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
for seed in 1 2 3; do
	dev=$(t_tornblk_create tb$seed size_mb=64 seed=$seed)
	j=/tmp/journal.$seed
	# 6100 writes, an fsync after every 250: the last 100 are still cached.
	"$ATOMICW" write "$dev" --journal "$j" -b 4k -q 8 -c 6100 --fsync-every 250 --seed "$seed" ||
		t_fail "atomicw write on $dev failed"
	cached=$(t_tornblk_stat tb$seed cache_bytes)
	t_tornblk_cut tb$seed
	[ "$cached" -gt 0 ] || t_fail "nothing was in the write cache at the cut"
	t_log "seed $seed: cut with $cached bytes cached, $(t_tornblk_stat tb$seed cut_units_dropped) units dropped"
	t_tornblk_on tb$seed
	t_verify "$dev" "$j"
	[ "$(t_verify_count missing-durable)" = 0 ] || t_fail "seed $seed: fsynced data lost"
	[ "$(t_verify_count corrupt)" = 0 ] || t_fail "seed $seed: corrupt blocks"
	durable=$(grep -o 'fsyncs)' <<<"$T_VERIFY_OUT" || true)
	[ -n "$durable" ] || t_fail "verify did not read the journal"
	t_tornblk_remove tb$seed
done
t_pass "fsynced data survived every cut"
