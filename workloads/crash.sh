#!/bin/bash
# Crash-and-verify loop for one configuration (runs in the guest).
# Usage: crash.sh CONFIG [--cycles N] [--seed S] [--out DIR] [--check]
#                 [--until-corrupt]
#
# Each cycle: fresh tornblk devices with XFS and the prepared cluster (data
# on the device under test, WAL on its own; see lib.sh); sysbench
# oltp_write_only plus a commit ledger client; then a CHECKPOINT and a power
# cut armed at a random data-device write among the ones that checkpoint
# will issue (estimated from the dirty buffers), so that the cut lands in
# the checkpoint's writeback, the window where pages can tear; the WAL
# device loses power with it.  Kill what is left of PostgreSQL, umount, power on, mount (XFS
# log recovery), start PostgreSQL (WAL replay), pg_amcheck --heapallindexed,
# the ledger check (every commit the client saw must be there), a clean stop
# and pg_checksums --check.  One CSV row per cycle goes to DIR/crash.csv.
# --check applies the expectations: baseline and lbs-atomic never corrupt and
# never lose a commit; unsafe and lbs-only (the controls) must show
# corruption in at least one cycle, or the loop is not biting.
# --until-corrupt stops at the first corrupt cycle (for the controls: at
# most N cycles to show that the loop bites).
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

config=${1:?usage: crash.sh CONFIG [--cycles N] [--seed S] [--out DIR] [--check]}
shift
cycles=3 seed=1 out=/lbs-out check=0 until=0
while [ $# -gt 0 ]; do
	case $1 in
	--cycles) cycles=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	--until-corrupt) until=1; shift ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
T_NAME="crash-$config"
wl_config "$config"
t_require sysbench runuser
RANDOM=$seed
csv=$out/crash.csv
[ -s "$csv" ] || echo "kernel,config,xfs_bs,pawu,atomic_unit,full_page_writes,cycle,seed,cut,cut_after_writes,cached_writes,torn_writes,units_kept,units_lost,mount,recovery,amcheck_rc,amcheck_errors,checksum_bad,commits_seen,commits_lost,verdict" >"$csv"

wl_template

# cycle C: one crash and its verification; appends a CSV row.
cycle() {
	local c=$1 cseed=$((seed * 1000 + $1)) dirty window n cut=armed tries p
	local cached torn ukept ulost mount=ok recovery=ok am_rc=NA am_err=NA bad=NA seen=0 lost=NA verdict
	local ledger=/tmp/ledger.$c
	WL_SEED=$cseed wl_device
	wl_pg_start || { tail -n 20 "$WL_LOG"; t_fail "cycle $c: the fresh cluster did not start"; }
	rm -f "$ledger"
	wl_ledger_start "$ledger" 600
	(wl_sysbench oltp_write_only --time=600 run) >/tmp/sb.out 2>&1 &
	local sb=$!
	disown "$sb" "$WL_LEDGER_PID" # sysbench may segfault when the server dies
	sleep 8
	# The checkpointer writes back in 256 kB (checkpoint_flush_after) runs.
	dirty=$(psql_q -d sbtest -c "SELECT count(*) FROM pg_buffercache WHERE isdirty") ||
		t_fail "cycle $c: pg_buffercache query failed"
	window=$((dirty / 32))
	[ "$window" -ge 2 ] || window=2
	n=$((1 + RANDOM % window))
	echo "$n" >"$TB_CFG/$WL_DEV/cut_after_writes"
	(psql_q -d sbtest -c CHECKPOINT) >/dev/null 2>&1 &
	tries=3000
	read -r p <"$TB_CFG/$WL_DEV/power"
	while [ "$p" = 1 ] && [ $tries -gt 0 ]; do
		sleep 0.02
		tries=$((tries - 1))
		read -r p <"$TB_CFG/$WL_DEV/power"
	done
	[ "$p" = 0 ] || cut=timed
	wl_power_cut_all
	cached=$(tb_stat cut_writes)
	torn=$(tb_stat cut_writes_torn)
	ukept=$(tb_stat cut_units_persisted)
	ulost=$(tb_stat cut_units_dropped)
	kill -9 "$sb" "$WL_LEDGER_PID" 2>/dev/null || true
	wl_pg_kill
	wait
	wl_umount_all
	wl_power_on_all
	[ -s "$ledger" ] && seen=$(wc -l <"$ledger")
	if ! wl_mount_all; then
		mount=failed recovery=NA
		t_log "cycle $c: mount failed: $(tail -n 2 /tmp/mount.err) $(dmesg | tail -n 2)"
	elif ! wl_pg_start; then
		recovery=failed
		t_log "cycle $c: recovery failed: $(grep -E 'PANIC|FATAL|invalid page|checksum' "$WL_LOG" | tail -n 2)"
	else
		am_rc=0
		as_pg "$PGBIN/pg_amcheck" -h "$PGSOCK" -U postgres --heapallindexed -d sbtest \
			>/tmp/amcheck.out 2>&1 || am_rc=$?
		am_err=$(grep -c . /tmp/amcheck.out || true)
		psql_q -d sbtest -c "COPY (SELECT tid || ' ' || seq FROM ledger) TO STDOUT" \
			>/tmp/ledger.db || t_fail "cycle $c: reading the ledger failed"
		touch "$ledger"
		sort "$ledger" >/tmp/ledger.seen
		sort /tmp/ledger.db >/tmp/ledger.have
		lost=$(comm -23 /tmp/ledger.seen /tmp/ledger.have | wc -l)
		wl_pg_stop || t_fail "cycle $c: clean stop after recovery failed"
		# pg_checksums exits 1 when it finds bad pages: the count is the answer.
		bad=$( (as_pg "$PGBIN/pg_checksums" --check -D "$WL_DATA" 2>&1 || true) |
			awk -F: '/Bad checksums/ { gsub(/ /, "", $2); print $2 }')
		[ -n "$bad" ] || t_fail "cycle $c: pg_checksums gave no count"
	fi
	if [ "$mount" != ok ] || [ "$recovery" != ok ] || [ "$am_rc" != 0 ] || [ "$bad" != 0 ]; then
		verdict=corrupt
	else
		verdict=clean
	fi
	[ "$lost" = NA ] || [ "$lost" -eq 0 ] || verdict=$verdict+lost
	t_log "cycle $c: $dirty dirty buffers; cut $cut after $n writes, $cached cached ($torn torn," \
		"units $ukept kept $ulost lost);" \
		"mount $mount, recovery $recovery, amcheck rc $am_rc, bad checksums $bad," \
		"commits seen $seen lost $lost: $verdict"
	echo "$(uname -r),$config,$WL_XFS_BS,$WL_PAWU,$WL_ATOMIC,$WL_FPW,$c,$cseed,$cut,$n,$cached,$torn,$ukept,$ulost,$mount,$recovery,$am_rc,$am_err,$bad,$seen,$lost,$verdict" >>"$csv"
	VERDICTS+=("$verdict")
	UNITS_KEPT=$((UNITS_KEPT + ukept))
	UNITS_LOST=$((UNITS_LOST + ulost))
	wl_pg_kill
	wl_device_remove
}

VERDICTS=()
UNITS_KEPT=0 UNITS_LOST=0
for c in $(seq 1 "$cycles"); do
	t_log "cycle $c of $cycles ($config: XFS $WL_XFS_BS, pawu $WL_PAWU, atomic $WL_ATOMIC, full_page_writes $WL_FPW)"
	cycle "$c"
	case ${VERDICTS[-1]} in corrupt*) [ "$until" -eq 0 ] || break ;; esac
done
cycles=${#VERDICTS[@]}
corrupt=0 lost=0
for v in "${VERDICTS[@]}"; do
	case $v in corrupt*) corrupt=$((corrupt + 1)) ;; esac
	case $v in *lost) lost=$((lost + 1)) ;; esac
done
summary="$config: $cycles cycles, $corrupt with corruption, $lost with lost commits"
t_log "$summary"
if [ "$check" -eq 1 ]; then
	case $config in
	baseline | lbs-atomic)
		[ "$corrupt" -eq 0 ] || t_fail "$config must never corrupt: $summary"
		[ "$lost" -eq 0 ] || t_fail "$config must never lose a commit: $summary"
		# The cuts must have kept some unflushed units and dropped others:
		# the same coin tears pages when the unit is smaller than a page.
		if [ "$UNITS_KEPT" -eq 0 ] || [ "$UNITS_LOST" -eq 0 ]; then
			t_fail "the cuts kept $UNITS_KEPT and lost $UNITS_LOST unflushed units: these cycles tested nothing"
		fi
		;;
	unsafe | lbs-only)
		[ "$corrupt" -gt 0 ] || t_fail "control $config never showed corruption: the loop is not biting"
		;;
	esac
fi
t_pass "$summary"
