#!/bin/bash
# Crash-and-verify loop for one configuration (runs in the guest).
# Usage: crash.sh CONFIG [--cycles N] [--seed S] [--out DIR] [--check]
#                 [--until-shown] [--commit SHA] [--dma-delay-us US]
#                 [--cuts mixed|evict|race]
#
# Each cycle:
#  1. fresh tornblk devices (data under test, WAL on its own unless the
#     configuration puts it on the data filesystem; one cut group, see
#     lib.sh) with XFS and the prepared cluster; sysbench
#     oltp_write_only plus a commit ledger client, with autovacuum on
#     (lib.sh: often enough that the visibility and free space maps are
#     written during the load; autovacuums counts its runs before the cut);
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
#     (--cuts evict: every cycle does this; mixed, as said; the default
#     is the configuration's cuts field of configs.tsv).  With cuts race
#     every cycle runs the eviction load and then, instead of holding
#     flushes, arms the data device to cut right after it copies an 8k
#     piece from two versions (the writeback race's tear, possible only
#     where stable pages are off): that copy is made durable, as by a
#     cache flush, and both devices lose power at once; 30 s without one
#     make the cycle untested (cut_mode race-none);
#  3. the cut: a position k is drawn uniformly in 1..N (or k = N, right
#     before the checkpoint's fsync, in every fourth cycle); the data
#     device loses power as if right after its k-th write (later writes
#     are lost whole, earlier ones tear by the seeded coin), and the WAL
#     device loses power at the same instant, right after it acknowledged
#     a write that was not flushed yet, one of 16k or more (two WAL pages)
#     where one comes within 2 s (an armed cut on it; by hand if none comes:
#     column wal_cut, see wal_cut below).  With pg_wal on the data filesystem
#     (configs.tsv's pg_wal: data) there is one device and its cut;
#  4. kill what is left of PostgreSQL, umount, power on, then the checks
#     of checks.tsv (checks.sh), phase by phase: mount (XFS log recovery),
#     start PostgreSQL (WAL replay; its log searched for page verification
#     failures before anything is rewritten), pg_amcheck --all
#     --heapallindexed --parent-check --rootdescend, pg_visibility's
#     pg_check_visible and pg_check_frozen, the ledger (every commit the
#     client saw must be there), pg_xact against it, its counters (lost
#     updates, and pages of the two tables that disagree), its hash and GIN
#     indexes against a sequential scan, a clean stop, pg_checksums
#     --check, and xfs_repair -n of both devices.
# A cycle that tested nothing (no acknowledged commits, nothing cached on
# the data device at the cut, no WAL redo, or in an eviction cycle no
# buffer written out by the bgwriter or a backend) is "untested", never
# clean.
# One CSV row per cycle is appended to DIR/crash.csv (resumable: cycle
# numbers continue after the rows already there) and each cycle's server
# log and pg_amcheck output are kept in DIR/logs/ (amcheck_errors counts
# the relations pg_amcheck reported, one header line each).
# dma_pages_changed: the data device's pages changed while it captured them
# during the cycle (the writeback race's chances); dma_pieces_mixed: its
# PostgreSQL-page-sized pieces (pg_bs) it copied from two versions (a page
# read before a change, another after it: the pages the race tore).
# pages_torn counts the data device's torn page-sized pieces,
# meta_pages_torn those of them in XFS's log and metadata writes (REQ_META;
# the mount, recovery and xfs_repair checks judge what they did): the rest
# are file data.
# --check judges the cycles by the configuration's role (roles.tsv, applied
# by configs.py judge, as the report does): protected ones must have only
# clean cycles, and without full-page writes no torn piece of file data;
# controls must show what they exist to show: corruption, or for the
# ledger's control (synchronous_commit off) lost acknowledged commits
# (with --until-shown: stop at the first cycle that shows it).
# --dma-delay-us US: the devices capture write data US microseconds per
# page after submission, as a real device's DMA does (see kernel/tornblk;
# default configs.sh's, the realistic device: the page-cache writeback race
# can happen); 0 copies it at submission.  Every row names the model.
# vm: mem=3072 timeout=1500
# test-source: bash workloads/configs.sh tests
# test: crash.unsafe-evict after=pg-template -- unsafe --cuts evict --cycles 4 --until-shown --check
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh
# shellcheck source=workloads/checks.sh
. /lbs/src/workloads/checks.sh

config=${1:?usage: crash.sh CONFIG [--cycles N] [--seed S] [--out DIR] [--check]}
shift
cycles=3 seed=1 out=/lbs-out check=0 until=0 commit=unknown cuts=''
while [ $# -gt 0 ]; do
	case $1 in
	--cycles) cycles=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--commit) commit=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	--until-shown) until=1; shift ;;
	--dma-delay-us) WL_DMA_DELAY_US=${2:?}; shift 2 ;;
	--cuts) cuts=${2:?}; shift 2 ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
for v in "$cycles" "$seed" "$WL_DMA_DELAY_US"; do
	case $v in '' | *[!0-9]*) t_fail "--cycles, --seed and --dma-delay-us take whole numbers, got '$v'" ;; esac
done
T_NAME="crash-$config"
wl_config "$config"
wl_pg_build
cuts=${cuts:-$WL_CUTS}
case $cuts in mixed | evict | race) ;; *) t_fail "--cuts takes mixed, evict or race, got '$cuts'" ;; esac
[ "$(wl_role_field "$WL_ROLE" crash)" = yes ] ||
	t_fail "$config is a $WL_ROLE configuration: the crash loop runs only those of roles $(wl_roles_where crash yes | paste -sd,) (roles.tsv)"
t_require sysbench runuser xfs_repair
csv=$out/crash.csv
logs=$out/logs
# A test (--check) judges its own cycles only: it starts a new CSV.
[ "$check" -eq 0 ] || rm -rf "$csv" "$logs"
mkdir -p "$logs"
wl_csv "$csv" "$(crash_columns)" add
# Resume: cycle numbers (and so seeds) continue after the rows already there.
first=$(($(wc -l <"$csv")))
expected=$(wl_role_field "$WL_ROLE" expect)

wl_template

# ckpt_syncing PID [wal]: process PID (the checkpointer) is in fsync(2) or
# fdatasync(2) of a relation's or an SLRU's file: ProcessSyncRequests, the
# fsyncs of its buffer writes (pg_stat_activity's DataFileSync and
# SLRUSync); with "wal", of a WAL segment instead (it flushes the WAL up to
# a buffer's LSN before writing the buffer out: with pg_wal on the data
# device, those flushes are held too).  Read from /proc (the syscall it is
# blocked in, and what its descriptor names), as a new connection to ask
# the server takes seconds under this load.
ckpt_syncing() {
	local nr fd rest path
	read -r nr fd rest <"/proc/$1/syscall" 2>/dev/null || return 1
	case $nr in 74 | 75) ;; *) return 1 ;; esac # x86-64: fsync, fdatasync
	path=$(readlink "/proc/$1/fd/$((fd))" 2>/dev/null) || return 1
	if [ "${2:-}" = wal ]; then
		case $path in */pg_wal | */pg_wal/*) return 0 ;; esac
		return 1
	fi
	case ${path#"$WL_DATA"/} in
	base/* | global/* | pg_xact/* | pg_multixact/* | pg_subtrans/* | pg_commit_ts/* | pg_serial/* | pg_notify/*) return 0 ;;
	esac
	return 1
}

# wal_syncing: some PostgreSQL process is in fsync(2) or fdatasync(2) of a
# WAL segment (or pg_wal itself).
wal_syncing() {
	local pid
	for pid in $(pgrep -u postgres); do
		! ckpt_syncing "$pid" wal || return 0
	done
	return 1
}

# wait_ckpt_fsync: wait until the checkpointer waits in an fsync of its
# buffer writes (ProcessSyncRequests) that the data device holds.  A flush
# held earlier (an fsync before the buffer writes, an XFS log force) is let
# through, as a device would.  CK_MODE says how the wait ended (fsync or
# timeout); RELEASED counts the flushes let through.
wait_ckpt_fsync() {
	local tries=1200 held prev=-1 w stable=0 ckpt
	CK_MODE=timeout
	ckpt=$(pgrep -u postgres -f '^postgres: .*checkpointer') || t_fail "no checkpointer process"
	[[ $ckpt =~ ^[0-9]+$ ]] || t_fail "not one checkpointer process: $ckpt"
	while [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
		held=$(tb_stat held_now)
		if [ "$held" -gt 0 ] && ! wl_wal_own && ! ckpt_syncing "$ckpt" && wal_syncing; then
			# pg_wal on the data device: while the checkpointer is not
			# in its fsync, a WAL flush (a commit's, or the
			# checkpointer's before it writes a buffer out) is let
			# through at once; waiting for the writes to settle first
			# took about a second per flush, 30 s a cycle
			release_held
			continue
		fi
		w=$(tb_stat writes)
		if [ "$w" = "$prev" ]; then stable=$((stable + 1)); else stable=0; fi
		prev=$w
		if [ "$held" -eq 0 ] || [ $stable -lt 3 ]; then continue; fi
		if ckpt_syncing "$ckpt"; then
			CK_MODE=fsync
			return 0
		fi
		release_held
	done
}

# release_held: the data device lets the flushes it holds through (and
# holds the next ones again).
release_held() {
	echo 0 >"$TB_CFG/$WL_DEV/hold_flush" || t_fail "hold_flush 0 refused"
	echo 1 >"$TB_CFG/$WL_DEV/hold_flush" || t_fail "hold_flush 1 refused"
	RELEASED=$((RELEASED + 1))
}

trap 'wl_writeback default || true' EXIT

# evictions: buffers PostgreSQL has written out other than by a checkpoint
# (bgwriter and backends), through the cycle's session.
evictions() {
	wl_sess_q "SELECT buffers_clean + buffers_backend FROM pg_stat_bgwriter;" ||
		t_fail "reading pg_stat_bgwriter failed"
}

# The tornblk counters each cycle records at the cut: column -> counter of
# the data device (wal_*: of the WAL device).  dma_pages_changed counts the
# whole cycle's load: pages PostgreSQL (or XFS) changed while the device was
# still reading them, the writeback race's chances (0 with stable writes).
declare -A CUT_STATS=([data_cached_writes]=cut_writes [data_rewound_writes]=cut_rewound
	[torn_writes]=cut_writes_torn [units_kept]=cut_units_persisted [units_lost]=cut_units_dropped
	[pages_in_flight]=cut_pieces [pages_partial]=cut_pieces_partial [pages_torn]=cut_pieces_torn
	[meta_pages_torn]=cut_pieces_torn_meta [dma_pages_changed]=dma_pages_changed
	[dma_pieces_mixed]=dma_pieces_mixed)
declare -A CUT_WALSTATS=([wal_cached_writes]=cut_writes [wal_pages_torn]=cut_pieces_torn)

# lap NAME: the time since the last lap (or the cycle's start), added to
# LAPS as NAME=SECONDS: where a cycle's minute goes, logged with its row.
# (Microseconds in bash arithmetic: a fork per lap cost tens of ms in the
# emulator, a dozen times a cycle.)
lap() {
	local now=${EPOCHREALTIME/[.,]/} tenths
	tenths=$(((now - LAP_T + 50000) / 100000))
	LAPS+=("$1=$((tenths / 10)).$((tenths % 10))")
	LAP_T=$now
}

# sleep_until T: sleep until EPOCHREALTIME's microsecond count T (not at
# all when it is past).
sleep_until() {
	local left=$(($1 - ${EPOCHREALTIME/[.,]/}))
	[ "$left" -le 0 ] || sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
}

# wal_cut: the instant of the cut, when pg_wal has a device of its own:
# right after the WAL device acknowledges a write, before it is flushed, so
# that the WAL tail is in the volatile cache too (commits go on while the
# checkpoint waits).  A cached WAL file write of 16k or more (two WAL
# pages: a group commit's, or full-page images) is waited for first, 2 s
# at most (tornblk's cut_min_bytes, which leaves FUA and XFS's own writes
# out): the coin can tear it between its pages, a one-page write only
# where the page's both halves changed.  R[wal_cut]: pages (a cut after
# such a write), page (after a shorter one), none (no write of 16k in 2 s,
# then none at all in 3 s: cut by hand) or data (pg_wal is on the data
# device, whose cut takes the WAL tail with it).
wal_cut() {
	local min tries p=1
	R[wal_cut]=data
	wl_wal_own || return 0
	for min in $((2 * 8192)) 0; do
		echo "$min" >"$TB_CFG/$WL_WALDEV/cut_min_bytes" || t_fail "cut_min_bytes refused"
		echo 1 >"$TB_CFG/$WL_WALDEV/cut_after_writes" || t_fail "cut_after_writes refused"
		tries=$((min > 0 ? 20 : 30))
		while [ "$p" = 1 ] && [ $tries -gt 0 ]; do
			sleep 0.1
			tries=$((tries - 1))
			read -r p <"$TB_CFG/$WL_DEV/power"
		done
		if [ "$p" = 0 ]; then
			R[wal_cut]=page
			[ "$min" -eq 0 ] || R[wal_cut]=pages
			return 0
		fi
	done
	R[wal_cut]=none
}

# race_cut: the cut of configs.tsv's cuts "race", after the eviction
# load: the data device is armed to cut right after it copied an 8k piece
# from two versions (tornblk's cut_after_mixed: that torn copy made
# durable as by a cache flush, both devices' power off at the same
# instant), waited for 30 s at most.  If no such copy came in that time
# the cycle is untested whatever its checks find (cut_mode race-none) and
# cut as the others are.  R[wal_cut] race: the WAL device lost power in
# the same instant, at no write of its own.
race_cut() {
	local tries=300 p=1
	R[cut_mode]=race R[wal_cut]=race
	echo 1 >"$TB_CFG/$WL_DEV/cut_after_mixed" || t_fail "cycle $CYCLE: cut_after_mixed refused"
	while [ "$p" = 1 ] && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
		read -r p <"$TB_CFG/$WL_DEV/power"
	done
	[ "$p" = 1 ] || return 0
	echo 0 >"$TB_CFG/$WL_DEV/cut_after_mixed" || t_fail "cycle $CYCLE: disarming cut_after_mixed refused"
	# (it may have struck between the last read and the disarming)
	read -r p <"$TB_CFG/$WL_DEV/power"
	[ "$p" = 1 ] || return 0
	R[cut_mode]=race-none
	crash_untested "the race tore no page in 30 s"
	wal_cut
}

# race_where: after a race cut, with the data filesystem mounted again:
# where the write that was copied from two versions lies (tornblk names its
# sector and length in the kernel log), from the extent maps of every file
# on the data device (filefrag, one process for all): FILE@PAGE+PAGES, the
# file under the mount point and its first PostgreSQL page and page count
# (a clean race cycle then says which page PostgreSQL did not need: one
# redo rewrites whole, an SLRU's, a map's, one truncated away), or
# "unmapped" when no file holds that sector now.
race_where() {
	local line len sec
	line=$(dmesg | sed -n "s/.*tornblk: $WL_DEV: the write of \([0-9]*\) bytes at sector \([0-9]*\) was copied from two versions.*/\1 \2/p" |
		tail -n 1)
	read -r len sec <<<"$line"
	[ -n "${sec:-}" ] || { echo unknown; return 0; }
	find "$WL_MNT" -xdev -type f -print0 | xargs -0 -r filefrag -b512 -e 2>/dev/null |
		awk -v sec="$sec" -v len="$len" -v pg="$WL_PG_BS" -v mnt="$WL_MNT/" '
		/^File size of / { f = $4; sub(mnt, "", f); next }
		# " ext: logical_offset: physical_offset: length: ...", in 512-byte units
		$1 ~ /^[0-9]+:$/ && !found {
			gsub(/\.\. */, ".."); $0 = $0 # "0..   383:" as one field, widths vary
			l0 = $2; sub(/\.\..*/, "", l0); p0 = $3; sub(/\.\..*/, "", p0); p1 = $3; sub(/.*\.\./, "", p1)
			sub(/:$/, "", p1)
			if (sec + 0 >= p0 + 0 && sec + 0 <= p1 + 0) {
				off = (l0 + sec - p0) * 512
				printf "%s@%d+%d\n", f, int(off / pg), int((len + pg - 1) / pg); found = 1
			}
		}
		END { if (!found) print "unmapped" }'
}

# cycle C: one crash and its verification (the checks of checks.sh);
# appends its row, R, to the CSV.
cycle() {
	local c=$1 t0=$SECONDS w0 w1 n k=0 evict=0 evicted=NA e1 col sb where load_t
	R=()
	LAPS=() LAP_T=${EPOCHREALTIME/[.,]/}
	CRASH_UNTESTED=()
	CYCLE=$c CYCLE_LEDGER=/tmp/ledger.$c CYCLE_LOG=$logs/cycle-$c.log
	R[kernel]=$(uname -r) R[commit]=$commit R[config]=$config R[xfs_bs]=$WL_XFS_BS
	R[pawu]=$WL_PAWU R[atomic_unit]=$WL_ATOMIC R[xfs_mount]=$WL_MOUNT R[full_page_writes]=$WL_FPW
	R[synchronous_commit]=$WL_SYNC R[pg_wal]=$WL_PGWAL R[dma_delay_us]=$WL_DMA_DELAY_US R[cycle]=$c
	R[seed]=$((seed * 1000 + c)) R[cut_pos]=0 R[cut_fraction]=NA
	[ "$cuts" = mixed ] && [ $((c % 4)) -ne 2 ] || evict=1
	RANDOM=${R[seed]}
	WL_SEED=${R[seed]} wl_device
	lap device
	[ "$evict" -eq 0 ] || wl_evict_settings >>"$WL_DATA/postgresql.conf"
	rm -f "$WL_LOG"
	wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "cycle $c: the fresh cluster did not start"; }
	# The queries of the load and the cut go through one session, opened
	# while the server is idle: a new connection takes seconds under load,
	# and once the flushes are held it waits for XFS's log.
	wl_sess_open
	R[autovacuum]=$(wl_sess_q "SHOW autovacuum;") || t_fail "cycle $c: SHOW autovacuum failed"
	lap start
	rm -f "$CYCLE_LEDGER"
	wl_ledger_start "$CYCLE_LEDGER" 600
	(wl_sysbench oltp_write_only --time=600 run) >/tmp/sb.out 2>&1 &
	sb=$!
	disown "$sb" "$WL_LEDGER_PID" # sysbench may segfault when the server dies
	RELEASED=0
	if [ "$evict" -eq 1 ]; then
		wl_writeback fast
		evicted=$(evictions) || t_fail "cycle $c: no eviction count"
	fi
	# Autovacuum runs of the load so far (the statistics do not survive the
	# crash), read during the 8 s load.
	load_t=${EPOCHREALTIME/[.,]/}
	sleep 3
	R[autovacuums]=$(wl_sess_q "SELECT coalesce(sum(autovacuum_count), 0) FROM pg_stat_user_tables;") ||
		t_fail "cycle $c: reading pg_stat_user_tables failed"
	sleep_until $((load_t + 8000000))
	lap load
	if [ "$cuts" = race ]; then
		race_cut
	else
		echo 1 >"$TB_CFG/$WL_DEV/hold_flush" || t_fail "cycle $c: hold_flush refused"
	fi
	if [ "$cuts" = race ]; then
		:
	elif [ "$evict" -eq 1 ]; then
		sleep 3
		e1=$(evictions) || t_fail "cycle $c: no eviction count"
		evicted=$((e1 - evicted))
		R[cut_mode]=evict
		[ "$evicted" != 0 ] || crash_untested "PostgreSQL evicted no buffer"
	else
		wl_sess_send "CHECKPOINT;" || t_fail "cycle $c: sending the CHECKPOINT failed"
		wait_ckpt_fsync
		R[cut_mode]=$CK_MODE
	fi
	lap hold
	# Every write since the cache last emptied is unflushed: the cut falls
	# among them.
	w0=$(tb_stat last_flush_write) w1=$(tb_stat writes)
	n=$((w1 - w0))
	R[unflushed_writes]=$n
	# (a race cut made every write durable first: no position to record)
	[ "${R[cut_mode]}" != race ] || R[unflushed_writes]=NA R[cut_pos]=NA
	if [ "$n" -gt 0 ] && [ "$cuts" != race ]; then
		if [ "$evict" -eq 0 ] && [ $((c % 4)) -eq 0 ]; then
			k=$n R[cut_mode]=${R[cut_mode]}-end
		else
			k=$((1 + (RANDOM * 32768 + RANDOM) % n))
		fi
		R[cut_pos]=$k
		R[cut_fraction]=$(awk -v k="$k" -v n="$n" 'BEGIN { printf "%.3f", k / n }')
		echo $((w0 + k)) >"$TB_CFG/$WL_DEV/cut_rewind_to" || t_fail "cycle $c: cut_rewind_to refused"
	fi
	[ "$cuts" = race ] || wal_cut
	lap walcut
	wl_power_cut_all
	wl_writeback default
	for col in "${!CUT_STATS[@]}"; do R[$col]=$(tb_stat "${CUT_STATS[$col]}"); done
	for col in "${!CUT_WALSTATS[@]}"; do R[$col]=$(tb_walstat "${CUT_WALSTATS[$col]}"); done
	if [ "$cuts" != race ]; then
		[[ ${R[data_cached_writes]} =~ ^[1-9][0-9]*$ ]] || crash_untested "nothing cached on the data device at the cut"
	elif [ "${R[cut_mode]}" = race ] && ! [[ ${R[dma_pieces_mixed]} =~ ^[1-9][0-9]*$ ]]; then
		t_fail "cycle $c: the race cut struck, but the device counted no piece copied from two versions (${R[dma_pieces_mixed]})"
	fi
	kill -9 "$sb" "$WL_LEDGER_PID" 2>/dev/null || true
	wl_pg_kill
	lap kill
	wait
	lap wait
	wl_umount_all
	wl_power_on_all
	lap cut
	# The checks (checks.tsv), phase by phase.
	crash_phase powered
	: >"$WL_LOG"
	crash_phase mount
	if [ "$CRASH_BLOCKED" -eq 0 ] && [ "${R[cut_mode]}" = race ]; then
		R[race_piece]=$(race_where) || t_fail "cycle $c: finding the race's write failed"
		t_log "cycle $c: the write copied from two versions: ${R[race_piece]}"
	fi
	if [ "$CRASH_BLOCKED" -eq 0 ]; then
		crash_phase start
		if [ "$CRASH_BLOCKED" -eq 0 ]; then
			crash_phase online
			if [ "$CRASH_BLOCKED" -eq 0 ]; then
				wl_pg_stop || t_fail "cycle $c: clean stop after recovery failed"
				lap stop
				crash_phase stopped
			fi
		fi
		cp "$WL_LOG" "$CYCLE_LOG"
		wl_pg_kill
		wl_umount_all
		lap umount
		crash_phase unmounted
	fi
	R[seconds]=$((SECONDS - t0))
	crash_verdict
	# A race cycle whose race never came tested nothing of what it is for,
	# whatever the checks found after its cut by hand.
	if [ "${R[cut_mode]}" = race-none ]; then
		case ${R[verdict]} in *+lost) R[verdict]='untested+lost' ;; *) R[verdict]=untested ;; esac
	fi
	where="checkpoint ${R[cut_mode]} ($RELEASED earlier flushes let through)"
	[ "$evict" -eq 0 ] || where="eviction writes (${R[cut_mode]}, $evicted buffers evicted in the 11 s)"
	[ "$cuts" != race ] || where="the writeback race (${R[cut_mode]}: right after a copy from two versions was made durable)"
	t_log "cycle $c: $where with $n unflushed writes, cut after $k (${R[cut_fraction]}); data" \
		"${R[data_cached_writes]} cached (${R[data_rewound_writes]} rewound, ${R[torn_writes]} torn writes," \
		"pages ${R[pages_in_flight]} in flight ${R[pages_partial]} partial ${R[pages_torn]} torn," \
		"${R[meta_pages_torn]} of them XFS's; ${R[dma_pages_changed]} changed while captured, ${R[dma_pieces_mixed]} $((WL_PG_BS / 1024))k pieces mixed), WAL ${R[wal_cached_writes]} cached (${R[wal_pages_torn]}" \
		"pages torn, cut ${R[wal_cut]}); $(crash_findings): ${R[verdict]}${CRASH_DAMAGE[*]:+ (found: ${CRASH_DAMAGE[*]})}${CRASH_UNTESTED[*]:+ (untested: ${CRASH_UNTESTED[*]})}"
	crash_row >>"$csv"
	wl_device_remove
	lap remove
	t_log "cycle $c: seconds by step: ${LAPS[*]}"
	VERDICTS+=("${R[verdict]}")
	case ${R[cut_mode]} in timeout*) CK_TIMEOUTS=$((CK_TIMEOUTS + 1)) ;; esac
	if [[ ${R[pages_torn]} =~ ^[0-9]+$ ]] && [[ ${R[meta_pages_torn]} =~ ^[0-9]+$ ]]; then
		DATA_TORN=$((DATA_TORN + R[pages_torn] - R[meta_pages_torn]))
	fi
}

VERDICTS=()
CK_TIMEOUTS=0 # cycles whose wait for the checkpoint's fsync ran out
DATA_TORN=0 # torn pieces of file data (not XFS's log or metadata) at the cuts
t0=$SECONDS
for c in $(seq "$first" $((first + cycles - 1))); do
	t_log "cycle $c ($((c - first + 1)) of $cycles; $config: XFS $WL_XFS_BS, pawu $WL_PAWU, atomic $WL_ATOMIC, full_page_writes $WL_FPW, synchronous_commit $WL_SYNC, pg_wal $WL_PGWAL, DMA capture ${WL_DMA_DELAY_US} us/page)"
	cycle "$c"
	if [ "$until" -eq 1 ]; then
		# (an untested cycle shows nothing: its lost commits are not counted)
		case $expected:${VERDICTS[-1]} in corrupt:corrupt* | lost:clean+lost | lost:corrupt+lost) break ;; esac
	fi
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
	# The cut is placed by finding the checkpointer in its fsync: a wait that
	# ran out means that search is broken (the cut then lands elsewhere).
	[ "$CK_TIMEOUTS" -eq 0 ] ||
		t_fail "$config: $CK_TIMEOUTS cycles never found the checkpointer in its fsync (cut_mode timeout)"
	# The CSV holds this run's cycles only (--check starts it afresh).
	python3 /lbs/src/workloads/configs.py judge "$csv" >&2 || t_fail "$config: its cycles break its role's rule (above): $summary"
fi
t_pass "$summary"
