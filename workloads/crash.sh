#!/bin/bash
# Crash-and-verify loop for one configuration (runs in the guest).
# Usage: crash.sh CONFIG [--cycles N] [--seed S] [--out DIR] [--check]
#                 [--until-corrupt] [--commit SHA] [--ledger-control]
#                 [--dma-us US] [--cuts mixed|evict]
#
# Each cycle:
#  1. fresh tornblk devices (data under test, WAL on its own; one cut group,
#     see lib.sh) with XFS and the prepared cluster; sysbench
#     oltp_write_only plus a commit ledger client;
#  2. the data device holds back flushes (hold_flush) and a CHECKPOINT
#     runs until its first fsync of the buffer writes waits on the device
#     (earlier flushes are let through): every write the checkpoint issued
#     is then in the volatile cache, and the count N of unflushed writes
#     is read from the device, not guessed.  Every fourth cycle (cycle
#     numbers 2, 6, 10, ...) cuts among eviction writes instead: no
#     CHECKPOINT, shared_buffers of 4MB (far below the data set, so
#     backends and the bgwriter write dirty pages out all the time) and
#     the kernel's writeback every 0.2 s for pages dirty 1 s, so that
#     those writes reach the device during the load; the device holds
#     back flushes for 3 s of it and N is what it then has unflushed
#     (--cuts evict: every cycle does this; mixed, the default, as said);
#  3. the cut: a position k is drawn uniformly in 1..N (or k = N, right
#     before the checkpoint's fsync, in every fourth cycle); the data
#     device loses power as if right after its k-th write (later writes
#     are lost whole, earlier ones tear by the seeded coin), and the WAL
#     device loses power at the same instant, right after it acknowledged
#     a write that was not flushed yet (an armed cut on it; by hand, mode
#     "-nowal", if no WAL write comes within 5 s);
#  4. kill what is left of PostgreSQL, umount, power on, mount (XFS log
#     recovery), start PostgreSQL (WAL replay), then the checks: the server
#     log of the recovery searched for page verification failures (before
#     anything is rewritten), pg_amcheck --all --heapallindexed
#     --parent-check --rootdescend, pg_visibility's pg_check_visible and
#     pg_check_frozen, the ledger (every commit the client saw must be
#     there), a clean stop, pg_checksums --check, and xfs_repair -n of both
#     devices.
# A cycle that tested nothing (no acknowledged commits, nothing cached on
# the data device at the cut, no WAL redo, or in an eviction cycle no
# buffer written out by the bgwriter or a backend) is "untested", never
# clean.
# One CSV row per cycle is appended to DIR/crash.csv (resumable: cycle
# numbers continue after the rows already there) and each cycle's server
# log and pg_amcheck output are kept in DIR/logs/ (amcheck_errors counts
# the relations pg_amcheck reported, one header line each).
# pages_torn counts the data device's torn 8k pieces, meta_pages_torn those
# of them in XFS's log and metadata writes (REQ_META; the mount, recovery
# and xfs_repair checks judge what they did): the rest are file data.
# --check applies the configuration's role (configs.tsv): protected ones
# must have only clean cycles, and without full-page writes no torn piece
# of file data; controls must show corruption (with
# --until-corrupt: stop at the first corrupt cycle).
# --ledger-control runs with synchronous_commit=off: acknowledged commits
# must then be lost at some cut, proving that the ledger check bites.
# --dma-us US: the devices capture write data US microseconds per page
# after submission, as a real device's DMA does (see kernel/tornblk);
# 100 by default (the realistic device: the page-cache writeback race can
# happen), 0 copies it at submission.  Every row names the model.
# vm: mem=3072 timeout=1500
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# The crash loop's device model (lib.sh's default is for the benchmark).
WL_DMA_US=${WL_DMA_US:-100}
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

config=${1:?usage: crash.sh CONFIG [--cycles N] [--seed S] [--out DIR] [--check]}
shift
cycles=3 seed=1 out=/lbs-out check=0 until=0 commit=unknown ledger_control=0 cuts=mixed
while [ $# -gt 0 ]; do
	case $1 in
	--cycles) cycles=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--commit) commit=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	--until-corrupt) until=1; shift ;;
	--ledger-control) ledger_control=1; shift ;;
	--dma-us) WL_DMA_US=${2:?}; shift 2 ;;
	--cuts) cuts=${2:?}; shift 2 ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
for v in "$cycles" "$seed" "$WL_DMA_US"; do
	case $v in '' | *[!0-9]*) t_fail "--cycles, --seed and --dma-us take whole numbers, got '$v'" ;; esac
done
case $cuts in mixed | evict) ;; *) t_fail "--cuts takes mixed or evict, got '$cuts'" ;; esac
T_NAME="crash-$config"
wl_config "$config"
case $WL_ROLE in protected | control) ;;
*) t_fail "$config is a $WL_ROLE configuration (configs.tsv): the crash loop runs protected ones and controls" ;;
esac
t_require sysbench runuser xfs_repair
csv=$out/crash.csv
logs=$out/logs
# A test (--check) judges its own cycles only: it starts a new CSV.
[ "$check" -eq 0 ] || rm -rf "$csv" "$logs"
mkdir -p "$logs"
columns="kernel,commit,config,xfs_bs,pawu,atomic_unit,full_page_writes,synchronous_commit,dma_delay_us,cycle,seed,cut_mode,unflushed_writes,cut_pos,cut_fraction,data_cached_writes,data_rewound_writes,wal_cached_writes,torn_writes,units_kept,units_lost,pages_in_flight,pages_partial,pages_torn,meta_pages_torn,wal_pages_torn,mount,recovery,redo,log_page_errors,fsm_pages_zeroed,amcheck_rc,amcheck_errors,visibility_errors,checksum_bad,xfs_repair,commits_seen,commits_lost,seconds,verdict"
wl_csv "$csv" "$columns" add
# Resume: cycle numbers (and so seeds) continue after the rows already there.
first=$(($(wc -l <"$csv")))
sync_commit=on
[ "$ledger_control" -eq 0 ] || sync_commit=off

wl_template

# wait_ckpt_fsync: wait until the checkpointer waits in an fsync of its
# buffer writes (ProcessSyncRequests) that the data device holds.  A flush
# held earlier (an fsync before the buffer writes, an XFS log force) is let
# through, as a device would.  CK_MODE says how the wait ended (fsync or
# timeout); RELEASED counts the flushes let through.
wait_ckpt_fsync() {
	local tries=1200 held ev prev=-1 w stable=0
	CK_MODE=timeout
	while [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
		held=$(tb_stat held_now)
		w=$(tb_stat writes)
		if [ "$w" = "$prev" ]; then stable=$((stable + 1)); else stable=0; fi
		prev=$w
		if [ "$held" -eq 0 ] || [ $stable -lt 3 ]; then continue; fi
		ev=$(psql_q -c "SELECT wait_event FROM pg_stat_activity WHERE backend_type = 'checkpointer'" 2>/dev/null) || ev=
		case $ev in
		DataFileSync | SLRUSync) CK_MODE=fsync; return 0 ;;
		esac
		echo 0 >"$TB_CFG/$WL_DEV/hold_flush"
		echo 1 >"$TB_CFG/$WL_DEV/hold_flush"
		RELEASED=$((RELEASED + 1))
	done
}

# writeback fast|default: the kernel's writeback of dirty pages every 0.2 s
# for pages dirty 1 s (eviction cycles), or its settings as the loop found
# them.
WB_DEFAULT="$(cat /proc/sys/vm/dirty_writeback_centisecs) $(cat /proc/sys/vm/dirty_expire_centisecs)"
trap 'writeback default || true' EXIT
writeback() {
	local wb
	if [ "$1" = fast ]; then wb="20 100"; else wb=$WB_DEFAULT; fi
	echo "${wb% *}" >/proc/sys/vm/dirty_writeback_centisecs ||
		t_fail "setting dirty_writeback_centisecs to ${wb% *} failed"
	echo "${wb#* }" >/proc/sys/vm/dirty_expire_centisecs ||
		t_fail "setting dirty_expire_centisecs to ${wb#* } failed"
}

# evictions: buffers PostgreSQL has written out other than by a checkpoint
# (bgwriter and backends).
evictions() {
	psql_q -c "SELECT buffers_clean + buffers_backend FROM pg_stat_bgwriter" ||
		t_fail "reading pg_stat_bgwriter failed"
}

# check_visibility: rows pg_visibility finds wrongly marked all-visible or
# all-frozen in the user tables.
check_visibility() {
	psql_q -d sbtest -c "SELECT (SELECT count(*) FROM pg_check_visible(c.oid)) +
		(SELECT count(*) FROM pg_check_frozen(c.oid))
		FROM pg_class c WHERE c.relkind IN ('r', 'm') AND c.relnamespace = 'public'::regnamespace" |
		awk '{ s += $1 } END { print s + 0 }'
}

# cycle C: one crash and its verification; appends a CSV row.
cycle() {
	local c=$1 cseed=$((seed * 1000 + $1)) t0=$SECONDS mode w0 w1 n k=0 frac=NA
	local cached=NA rewound=NA walc=NA torn=NA ukept=NA ulost=NA inflight=NA partial=NA ptorn=NA mtorn=NA waltorn=NA
	local mount=ok recovery=NA redo=NA logerr=NA fsm=NA am_rc=NA am_err=NA vis=NA bad=NA repair=NA
	local seen=0 lost=NA verdict why=() ledger=/tmp/ledger.$c clog=$logs/cycle-$c.log
	local evict=0 evicted=NA e1
	[ "$cuts" = mixed ] && [ $((c % 4)) -ne 2 ] || evict=1
	RANDOM=$cseed
	WL_SEED=$cseed wl_device
	[ "$sync_commit" = on ] || echo "synchronous_commit = off" >>"$WL_DATA/postgresql.conf"
	# (no timed checkpoint either: its fsync would be held, and the cut
	# would fall among its writes)
	[ "$evict" -eq 0 ] || printf 'shared_buffers = 4MB\ncheckpoint_timeout = 1d\n' >>"$WL_DATA/postgresql.conf"
	rm -f "$WL_LOG"
	wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "cycle $c: the fresh cluster did not start"; }
	rm -f "$ledger"
	wl_ledger_start "$ledger" 600
	(wl_sysbench oltp_write_only --time=600 run) >/tmp/sb.out 2>&1 &
	local sb=$!
	disown "$sb" "$WL_LEDGER_PID" # sysbench may segfault when the server dies
	RELEASED=0
	if [ "$evict" -eq 1 ]; then
		writeback fast
		evicted=$(evictions) || t_fail "cycle $c: no eviction count"
	fi
	sleep 8
	echo 1 >"$TB_CFG/$WL_DEV/hold_flush" || t_fail "cycle $c: hold_flush refused"
	if [ "$evict" -eq 1 ]; then
		sleep 3
		e1=$(evictions) || t_fail "cycle $c: no eviction count"
		evicted=$((e1 - evicted))
		mode=evict
	else
		(psql_q -c CHECKPOINT) >/dev/null 2>&1 &
		wait_ckpt_fsync
		mode=$CK_MODE
	fi
	# Every write since the cache last emptied is unflushed: the cut falls
	# among them.
	w0=$(tb_stat last_flush_write) w1=$(tb_stat writes)
	n=$((w1 - w0))
	if [ "$n" -gt 0 ]; then
		if [ "$evict" -eq 0 ] && [ $((c % 4)) -eq 0 ]; then
			k=$n mode=$mode-end
		else
			k=$((1 + (RANDOM * 32768 + RANDOM) % n))
		fi
		frac=$(awk -v k="$k" -v n="$n" 'BEGIN { printf "%.3f", k / n }')
		echo $((w0 + k)) >"$TB_CFG/$WL_DEV/cut_rewind_to" || t_fail "cycle $c: cut_rewind_to refused"
	fi
	# The instant of the cut: right after the WAL device acknowledges its
	# next write, before that write is flushed, so that the WAL tail is in
	# the volatile cache too (commits go on while the checkpoint waits).
	echo 1 >"$TB_CFG/$WL_WALDEV/cut_after_writes"
	local tries=50 p=1
	while [ "$p" = 1 ] && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
		read -r p <"$TB_CFG/$WL_DEV/power"
	done
	[ "$p" = 0 ] || mode=$mode-nowal
	wl_power_cut_all
	writeback default
	cached=$(tb_stat cut_writes)
	rewound=$(tb_stat cut_rewound)
	torn=$(tb_stat cut_writes_torn)
	ukept=$(tb_stat cut_units_persisted)
	ulost=$(tb_stat cut_units_dropped)
	inflight=$(tb_stat cut_pieces)
	partial=$(tb_stat cut_pieces_partial)
	ptorn=$(tb_stat cut_pieces_torn)
	mtorn=$(tb_stat cut_pieces_torn_meta)
	walc=$(tb_walstat cut_writes)
	waltorn=$(tb_walstat cut_pieces_torn)
	kill -9 "$sb" "$WL_LEDGER_PID" 2>/dev/null || true
	wl_pg_kill
	wait
	wl_umount_all
	wl_power_on_all
	[ -s "$ledger" ] && seen=$(wc -l <"$ledger")
	: >"$WL_LOG"
	if ! wl_mount_all; then
		mount=failed
		t_log "cycle $c: mount failed: $(tail -n 2 /tmp/mount.err) $(dmesg | tail -n 2)"
	else
		recovery=ok
		wl_pg_start || recovery=failed
		# Before anything is rewritten: pages that failed verification
		# during recovery (visibility map and free space map pages are
		# zeroed and rewritten with fresh checksums, so only the log
		# remembers them).
		# Free space map pages are not WAL-logged: PostgreSQL zeroes a torn
		# one and rebuilds it, by design, even with full_page_writes on.
		# They count as corruption only where pages must never tear
		# (full_page_writes off); every other page error always does.
		fsm=$(grep -c 'invalid page in block .*_fsm; zeroing out page' "$WL_LOG" || true)
		logerr=$(grep 'invalid page in block' "$WL_LOG" | grep -vc '_fsm; zeroing out page' || true)
		local pvf inv
		pvf=$(grep -c 'page verification failed' "$WL_LOG" || true)
		inv=$(grep -c 'invalid page in block' "$WL_LOG" || true)
		[ "$pvf" -le "$inv" ] || logerr=$((logerr + pvf - inv))
		[ "$WL_FPW" = on ] || logerr=$((logerr + fsm))
		redo=no
		! grep -q 'redo starts at' "$WL_LOG" || redo=yes
		if [ "$recovery" = failed ]; then
			t_log "cycle $c: recovery failed: $(grep -E 'PANIC|FATAL|invalid page|checksum' "$WL_LOG" | tail -n 2 | tr '\n' ' ')"
		else
			am_rc=0
			as_pg "$PGBIN/pg_amcheck" -h "$PGSOCK" -U postgres --all --install-missing \
				--heapallindexed --parent-check --rootdescend >/tmp/amcheck.out 2>/tmp/amcheck.err || am_rc=$?
			# Each corruption report starts with a line naming its relation
			# on stdout; notices and warnings go to stderr.
			am_err=$(grep -cE '^(heap table|btree index) "' /tmp/amcheck.out || true)
			cat /tmp/amcheck.out /tmp/amcheck.err >"${clog%.log}.amcheck"
			vis=$(check_visibility) || t_fail "cycle $c: pg_visibility query failed"
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
		cp "$WL_LOG" "$clog"
		wl_pg_kill
		wl_umount_all
		repair=clean
		xfs_repair -n "/dev/$WL_DEV" >/tmp/repair.out 2>&1 || repair=data-damaged
		xfs_repair -n "/dev/$WL_WALDEV" >>/tmp/repair.out 2>&1 || repair=${repair/clean/}wal-damaged
	fi
	# What this cycle tested, and what it found.
	[ "$seen" -gt 0 ] || why+=("no acknowledged commits")
	[ "$cached" != NA ] && [ "$cached" -gt 0 ] || why+=("nothing cached on the data device at the cut")
	[ "$redo" = yes ] || [ "$recovery" != ok ] || why+=("no WAL redo")
	[ "$evicted" != 0 ] || why+=("PostgreSQL evicted no buffer")
	if [ "$mount" != ok ] || [ "$recovery" != ok ] || [ "$logerr" != 0 ] || [ "$am_rc" != 0 ] ||
		[ "$vis" != 0 ] || [ "$bad" != 0 ] || [ "$repair" != clean ]; then
		verdict=corrupt
	elif [ ${#why[@]} -gt 0 ]; then
		verdict=untested
	else
		verdict=clean
	fi
	[ "$lost" = NA ] || [ "$lost" -eq 0 ] || verdict=$verdict+lost
	local where="checkpoint $mode ($RELEASED earlier flushes let through)"
	[ "$evict" -eq 0 ] || where="eviction writes ($mode, $evicted buffers evicted in the 11 s)"
	t_log "cycle $c: $where with $n unflushed writes, cut after $k ($frac); data $cached cached" \
		"($rewound rewound, $torn torn writes, pages $inflight in flight $partial partial $ptorn torn, $mtorn of them XFS's)," \
		"WAL $walc cached ($waltorn pages torn); mount $mount, recovery $recovery, redo $redo," \
		"log page errors $logerr (fsm pages zeroed $fsm), amcheck rc $am_rc, visibility $vis, bad checksums $bad," \
		"xfs_repair $repair, commits seen $seen lost $lost: $verdict${why:+ (${why[*]})}"
	echo "$(uname -r),$commit,$config,$WL_XFS_BS,$WL_PAWU,$WL_ATOMIC,$WL_FPW,$sync_commit,$WL_DMA_US,$c,$cseed,$mode,$n,$k,$frac,$cached,$rewound,$walc,$torn,$ukept,$ulost,$inflight,$partial,$ptorn,$mtorn,$waltorn,$mount,$recovery,$redo,$logerr,$fsm,$am_rc,$am_err,$vis,$bad,$repair,$seen,$lost,$((SECONDS - t0)),$verdict" >>"$csv"
	VERDICTS+=("$verdict")
	if [[ $ptorn =~ ^[0-9]+$ ]] && [[ $mtorn =~ ^[0-9]+$ ]]; then
		DATA_TORN=$((DATA_TORN + ptorn - mtorn))
	fi
	wl_device_remove
}

VERDICTS=()
DATA_TORN=0 # torn pieces of file data (not XFS's log or metadata) at the cuts
t0=$SECONDS
for c in $(seq "$first" $((first + cycles - 1))); do
	t_log "cycle $c ($((c - first + 1)) of $cycles; $config: XFS $WL_XFS_BS, pawu $WL_PAWU, atomic $WL_ATOMIC, full_page_writes $WL_FPW, synchronous_commit $sync_commit, DMA capture ${WL_DMA_US} us/page)"
	cycle "$c"
	case ${VERDICTS[-1]} in corrupt*) [ "$until" -eq 0 ] || break ;; esac
	[ "$ledger_control" -eq 0 ] || case ${VERDICTS[-1]} in *lost) [ "$until" -eq 0 ] || break ;; esac
done
n=${#VERDICTS[@]}
corrupt=0 lost=0 untested=0
for v in "${VERDICTS[@]}"; do
	case $v in corrupt*) corrupt=$((corrupt + 1)) ;; untested*) untested=$((untested + 1)) ;; esac
	case $v in *lost) lost=$((lost + 1)) ;; esac
done
secs=$((SECONDS - t0))
summary="$config: $n cycles, $corrupt corrupt, $lost with lost commits, $untested untested, $DATA_TORN torn pieces of file data; $secs s, $((n * 3600 / (secs > 0 ? secs : 1))) cycles/hour"
t_log "$summary"
if [ "$check" -eq 1 ]; then
	if [ "$ledger_control" -eq 1 ]; then
		[ "$lost" -gt 0 ] || t_fail "ledger control: synchronous_commit=off lost no acknowledged commit: the ledger check is not biting"
	elif [ "$WL_ROLE" = protected ]; then
		[ "$corrupt" -eq 0 ] || t_fail "$config must never corrupt: $summary"
		[ "$lost" -eq 0 ] || t_fail "$config must never lose a commit: $summary"
		[ "$untested" -eq 0 ] || t_fail "$config: cycles that tested nothing: $summary"
		# Without full-page writes the claim is that no page of file data
		# ever tears, not only that no check noticed one.
		[ "$WL_FPW" = on ] || [ "$DATA_TORN" -eq 0 ] ||
			t_fail "$config: file data tore at a cut (a data write was not atomic): $summary"
	else
		[ "$corrupt" -gt 0 ] || t_fail "control $config never showed corruption: the loop is not biting"
	fi
fi
t_pass "$summary"
