#!/bin/bash
# The injector bites: with a 4k power-fail atomic unit, unflushed 16k
# O_DIRECT writes come back torn after a cut.  With RWF_ATOMIC on a device
# that advertises 16k atomic writes, no block is ever torn.
# test: tornblk.torn-control
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

run() { # run NAME WRITE-FLAGS ATTRS...
	local name=$1 flags=$2 dev
	shift 2
	dev=$(t_tornblk_create "$name" size_mb=64 cache_mb=128 pawu=4096 "$@")
	# shellcheck disable=SC2086
	"$ATOMICW" write "$dev" --journal "/tmp/$name.j" -b 16k -q 4 -c 3000 $flags >/dev/null ||
		t_fail "atomicw write $flags on $dev failed"
	t_tornblk_cut "$name"
	t_tornblk_on "$name"
	t_verify "$dev" "/tmp/$name.j"
}

run plain ""
torn=$(t_verify_count torn)
t_log "plain 16k writes, pawu 4k: $torn torn blocks, $(t_tornblk_stat plain cut_writes_torn) torn writes"
[ "$torn" -gt 0 ] || t_fail "control: no torn block without RWF_ATOMIC (the injector does not bite)"
[ $((T_VERIFY_RC & 1)) -eq 1 ] || t_fail "verify exit status $T_VERIFY_RC does not report torn blocks"

run atomic --atomic atomic_unit_min=4096 atomic_unit_max=16384
torn=$(t_verify_count torn)
kept=$(t_tornblk_stat atomic cut_atomic_persisted)
lost=$(t_tornblk_stat atomic cut_atomic_dropped)
t_log "RWF_ATOMIC 16k writes: $torn torn blocks; at the cut $kept atomic writes kept, $lost dropped"
[ "$torn" -eq 0 ] || t_fail "RWF_ATOMIC writes came back torn"
{ [ "$kept" -gt 0 ] && [ "$lost" -gt 0 ]; } || t_fail "the cut did not exercise atomic writes both ways"
[ "$T_VERIFY_RC" -eq 0 ] || t_fail "verify reported problems (exit $T_VERIFY_RC)"
[ "$(t_tornblk_stat atomic atomic_writes)" -eq 3000 ] ||
	t_fail "not every write reached the device as REQ_ATOMIC"
t_pass "torn without RWF_ATOMIC, never torn with it"
