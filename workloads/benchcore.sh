# shellcheck shell=bash
# shellcheck disable=SC2154  # the options are the sourcing script's (see below)
# The benchmark's runs, shared by bench.sh (in the guest, on tornblk) and
# hostbench (on a server's own filesystems).  The caller sources lib.sh,
# sets the options (events, warmup, timed, out, csv, cfg_list, wl_list,
# k_list, timed_list, reps) and defines the storage hooks:
#   bench_storage CONFIG REP  fresh storage for CONFIG with the template
#                             cluster at $WL_DATA; sets the WL_* of CONFIG
#   bench_release             after a run: the storage goes
#   bench_bytes data|wal      bytes written so far to that device
#   bench_bytes data-read     bytes read so far from the data device
#   bench_drop_caches         before a crash recovery (or nothing)
# and t_log / t_fail; with page_cache (MB, default 0: not limited) also
#   bench_squeeze MB          leave the page cache about MB, until
#                             bench_release (bench.sh only)
#   bench_squeeze_held        fails if that limit did not hold

# The columns of bench.csv (report_bench.py reads them by name).
# shellcheck disable=SC2034  # used by the scripts that source this file
BENCH_COLUMNS="kernel,config,xfs_bs,pawu,atomic_unit,full_page_writes,wal_compression,dma_delay_us,mode,workload,rep,ckpt_every,threads,data_set,warmup_events,transactions,seconds,wall_seconds,checkpoint_wait_s,tps,tps_cv,lat_avg_ms,lat_p95_ms,lat_p99_ms,wal_bytes,wal_fpi,wal_records,checkpoints_req,checkpoints_timed,checkpoint_waits,buffers_checkpoint,buffers_clean,buffers_backend,autovacuums,data_dev_bytes,wal_dev_bytes,wal_bytes_per_txn,wal_dev_bytes_per_txn,fpi_per_txn,data_dev_bytes_per_txn,recovery_s,restart_s,recovery_wal_bytes,page_cache_mb,data_dev_read_bytes,data_dev_read_bytes_per_txn"

# bench_count OPTION VALUE: a transaction count, whole and above 0; pgbench
# runs -t per client, so it must split evenly over the threads.
bench_count() {
	case $2 in '' | *[!0-9]* | 0) t_fail "$1 takes whole numbers above 0, got '$2'" ;; esac
	[ $(($2 % WL_THREADS)) -eq 0 ] ||
		t_fail "$1 $2 is not a multiple of the $WL_THREADS client threads (pgbench runs -t per client)"
}

# bench_validate: the workloads and transaction counts of the options.
bench_validate() {
	local w k
	for w in "${wl_list[@]}"; do
		case $w in
		oltp_write_only | oltp_read_write | oltp_update_index) ;;
		oltp_write_only:uniform | oltp_read_write:uniform | oltp_update_index:uniform) ;;
		pgbench-tpcb | pgbench-N) ;;
		*) t_fail "unknown workload '$w' (oltp_write_only, oltp_read_write, oltp_update_index, each with :uniform or not; pgbench-tpcb, pgbench-N)" ;;
		esac
	done
	bench_count --events "$events"
	bench_count --warmup-events "$warmup"
	for k in "${k_list[@]}"; do
		if [[ $k == wal* ]]; then
			# PostgreSQL's floor: two WAL segments of 16 MB.
			if ! [[ $k =~ ^wal[0-9]+$ ]] || [ "${k#wal}" -lt 32 ]; then
				t_fail "--ckpt-every $k: walMB takes a max_wal_size of at least 32 MB (e.g. wal32)"
			fi
			continue
		fi
		bench_count --ckpt-every "$k"
		[ $((events % k)) -eq 0 ] || t_fail "--events $events is not a multiple of --ckpt-every $k"
	done
}

# done_already MODE WORKLOAD REP K CONFIG: this run has its row, with the
# same device model, data set, page cache and amount of work (another mode
# of workloads/run writes rows of its own).  (Rows from before the page
# cache column have it empty: not limited.)
done_already() {
	awk -F, -v m="$1" -v w="$2" -v r="$3" -v k="$4" -v c="$5" -v n="$events" -v wu="$warmup" \
		-v dma="$WL_DMA_DELAY_US" -v ds="$(data_set "$2")" -v pc="${page_cache:-0}" '
		NR == 1 { for (i = 1; i <= NF; i++) f[$i] = i; next }
		$f["mode"] == m && $f["workload"] == w && $f["rep"] == r && $f["ckpt_every"] == k &&
		$f["config"] == c && $f["dma_delay_us"] == dma && $f["data_set"] == ds &&
		$f["page_cache_mb"] + 0 == pc &&
		$f["warmup_events"] == wu && (m == "timed" || $f["transactions"] == n) { found = 1 }
		END { exit !found }' "$csv"
}

# drive WORKLOAD N LATS: exactly N transactions of WORKLOAD; appends their
# latencies to LATS as "ms count" lines (sysbench: its histogram buckets,
# about 2% wide; pgbench: each transaction from its log).  Prints "WALL
# DRIVER": the wall seconds, and the seconds the driver itself counts for
# the transactions, without its start-up and connections (sysbench: N over
# its "per sec." rate; pgbench: N over its tps "without initial connection
# time").
drive() {
	local wl=$1 n=$2 lats=$3 t0 t1 f rate
	t0=$(date +%s.%N)
	case $wl in
	pgbench-*)
		local pgopt=()
		[ "$wl" = pgbench-N ] && pgopt=(-N)
		wl_pgbench "${pgopt[@]}" -t $((n / WL_THREADS))
		grep -q "number of transactions actually processed: $n/$n" "$WL_TMP/drive.out" ||
			{ tail -n 20 "$WL_TMP/drive.out" >&2; t_fail "pgbench $wl: not all $n transactions were processed"; }
		for f in "$WL_TMP"/pgblog*; do awk '{ printf "%.3f 1\n", $3 / 1000 }' "$f"; done >>"$lats"
		rate=$(awk '/^tps = .*without initial connection time/ { print $3 }' "$WL_TMP/drive.out")
		;;
	*)
		local rand=()
		case $wl in *:uniform) rand=(--rand-type=uniform) ;; esac
		wl_sysbench "${wl%%:*}" "${rand[@]}" --events="$n" --time=0 --histogram=on run \
			>"$WL_TMP/drive.out" 2>&1 ||
			{ tail -n 20 "$WL_TMP/drive.out" >&2; t_fail "sysbench $wl failed"; }
		awk '/transactions:/ { t = $2 } END { exit t != n }' n="$n" "$WL_TMP/drive.out" ||
			{ tail -n 20 "$WL_TMP/drive.out" >&2; t_fail "sysbench $wl: not exactly $n transactions"; }
		awk '/^ *[0-9.]+ \|/ { print $1, $NF }' "$WL_TMP/drive.out" >>"$lats"
		rate=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3; exit }' "$WL_TMP/drive.out")
		;;
	esac
	t1=$(date +%s.%N)
	case $rate in '' | *[!0-9.]*) tail -n 20 "$WL_TMP/drive.out" >&2; t_fail "$wl: no transaction rate in the driver's output" ;; esac
	awk -v a="$t0" -v b="$t1" -v n="$n" -v r="$rate" 'BEGIN { printf "%.3f %.3f\n", b - a, n / r }'
}

# latstats LATS: "avg p95 p99" in ms over the "ms count" lines.
latstats() {
	sort -g "$1" | awk '{ v[n] = $1; c[n] = $2; t += $2; s += $1 * $2; n++ }
	END {
		if (!t) { print "NA NA NA"; exit }
		for (i = 0; i < n; i++) {
			a += c[i]
			if (p95 == "" && a >= 0.95 * t) p95 = v[i]
			if (p99 == "" && a >= 0.99 * t) p99 = v[i]
		}
		printf "%.3f %s %s\n", s / t, p95, p99
	}'
}

# lsn HI/LO: a WAL position as a byte number.
lsn() { local h=${1%%/*} l=${1##*/}; echo $(((16#$h << 32) + 16#$l)); }

# pg_stats: the server's counters since the reset, into the array ST.
pg_stats() {
	local line
	line=$(psql_q -F' ' -c "SELECT w.wal_bytes, w.wal_fpi, w.wal_records, b.checkpoints_req,
		b.checkpoints_timed, b.buffers_checkpoint, b.buffers_clean, b.buffers_backend,
		(SELECT sum(autovacuum_count + autoanalyze_count) FROM pg_stat_all_tables)
		FROM pg_stat_wal w, pg_stat_bgwriter b") || t_fail "reading pg_stat_wal/pg_stat_bgwriter failed"
	read -r 'ST[wal_bytes]' 'ST[wal_fpi]' 'ST[wal_records]' 'ST[checkpoints_req]' \
		'ST[checkpoints_timed]' 'ST[buffers_checkpoint]' 'ST[buffers_clean]' \
		'ST[buffers_backend]' 'ST[autovacuums]' <<<"$line"
}

checkpoint() { psql_q -c CHECKPOINT >/dev/null; }

# start CONFIG WORKLOAD REP TIMEOUT [MAX_WAL_SIZE]: fresh devices, the
# server up (checkpoint_timeout TIMEOUT, max_wal_size the template's or
# MAX_WAL_SIZE), warmed up, checkpointed, statistics reset.
start() {
	local config=$1 wl=$2 rep=$3 tmo=$4 maxwal=${5:-}
	bench_storage "$config" "$rep"
	sed -i "s/^checkpoint_timeout = .*/checkpoint_timeout = $tmo/" "$WL_DATA/postgresql.conf"
	if [ -n "$maxwal" ]; then
		sed -i "s/^max_wal_size = .*/max_wal_size = $maxwal/" "$WL_DATA/postgresql.conf"
		grep -qx "max_wal_size = $maxwal" "$WL_DATA/postgresql.conf" ||
			t_fail "the template's postgresql.conf has no max_wal_size line to set"
	fi
	: >"$WL_LOG"
	wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "$config: server did not start"; }
	drive "$wl" "$warmup" "$WL_TMP/warmup.lats" >/dev/null
	# walMB: a fresh WAL segment first, so that every run's redo pointer
	# starts one and its first checkpoint by volume comes after the same
	# amount of WAL, not after whatever the template and warm-up left.
	if [ -n "$maxwal" ]; then
		psql_q -c "SELECT pg_switch_wal()" >/dev/null || t_fail "$config: pg_switch_wal failed"
	fi
	checkpoint || t_fail "$config: the checkpoint after the warm-up failed"
	# What the data set is against shared_buffers, once per output directory.
	[ -s "$out/data-set.tsv" ] || psql_q -F$'\t' -c "SELECT datname, pg_database_size(datname),
		current_setting('shared_buffers') FROM pg_database WHERE datname IN ('sbtest', 'pgbench')
		ORDER BY 1" >"$out/data-set.tsv" || t_fail "reading the database sizes failed"
	# A page cache smaller than the data set: from here on its reads reach
	# the device (the warm-up's cached pages leave it now).
	[ "${page_cache:-0}" -eq 0 ] || bench_squeeze "$page_cache"
	psql_q -c "SELECT pg_stat_reset_shared('wal'), pg_stat_reset_shared('bgwriter')" >/dev/null ||
		t_fail "resetting statistics failed"
	sync
}

data_set() {
	case $1 in
	pgbench-*) echo "pgbench scale $WL_PGBENCH_SCALE" ;;
	*) echo "sysbench ${WL_TABLES}x$WL_TABLE_SIZE" ;;
	esac
}

# row: one CSV line from the array R (missing keys: NA), in header order,
# with the configuration's columns and the per-transaction ratios added.
declare -A R ST
row() {
	local c line='' v
	R[kernel]=$(uname -r) R[config]=$WL_CONFIG R[xfs_bs]=$WL_XFS_BS R[pawu]=$WL_PAWU
	R[atomic_unit]=$WL_ATOMIC R[full_page_writes]=$WL_FPW R[wal_compression]=$WL_WALCOMP
	R[dma_delay_us]=$WL_DMA_DELAY_US R[threads]=$WL_THREADS R[data_set]=$(data_set "${R[workload]}")
	R[warmup_events]=$warmup R[page_cache_mb]=${page_cache:-0}
	for c in "${!ST[@]}"; do R[$c]=${ST[$c]}; done
	R[tps]=$(awk -v n="${R[transactions]}" -v s="${R[seconds]}" 'BEGIN { printf "%.2f", n / s }')
	R[wal_bytes_per_txn]=$(awk -v a="${R[wal_bytes]}" -v n="${R[transactions]}" 'BEGIN { printf "%.0f", a / n }')
	R[wal_dev_bytes_per_txn]=$(awk -v a="${R[wal_dev_bytes]}" -v n="${R[transactions]}" 'BEGIN { printf "%.0f", a / n }')
	R[fpi_per_txn]=$(awk -v a="${R[wal_fpi]}" -v n="${R[transactions]}" 'BEGIN { printf "%.4f", a / n }')
	R[data_dev_bytes_per_txn]=$(awk -v a="${R[data_dev_bytes]}" -v n="${R[transactions]}" 'BEGIN { printf "%.0f", a / n }')
	R[data_dev_read_bytes_per_txn]=$(awk -v a="${R[data_dev_read_bytes]}" -v n="${R[transactions]}" 'BEGIN { printf "%.0f", a / n }')
	IFS=, read -r -a cols <<<"$BENCH_COLUMNS"
	for c in "${cols[@]}"; do
		v=${R[$c]:-NA}
		line+=${line:+,}$v
	done
	echo "$line" >>"$csv"
}

# recovery WORKLOAD K: one more segment of K transactions, kill -9, the
# page cache dropped (redo then reads its pages from the device, as after a
# real crash), restart.  Sets R[recovery_s] (redo's own elapsed time from
# the server log), R[restart_s] (pg_ctl start until it accepts connections:
# redo plus the end-of-recovery checkpoint) and R[recovery_wal_bytes].
recovery() {
	local wl=$1 k=$2 from t0 t1 a b
	drive "$wl" "$k" "$WL_TMP/extra.lats" >/dev/null
	from=$(($(wc -l <"$WL_LOG") + 1))
	wl_pg_kill
	rm -f "$WL_DATA/postmaster.pid" # no process left: a stale lock file
	bench_drop_caches
	t0=$(date +%s.%N)
	wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "$WL_CONFIG: crash recovery failed"; }
	t1=$(date +%s.%N)
	a=$(tail -n +"$from" "$WL_LOG" | sed -n 's/.*redo starts at \([0-9A-F]*\/[0-9A-F]*\).*/\1/p' | head -n 1)
	b=$(tail -n +"$from" "$WL_LOG" | sed -n 's/.*redo done at \([0-9A-F]*\/[0-9A-F]*\).*/\1/p' | head -n 1)
	R[recovery_s]=$(tail -n +"$from" "$WL_LOG" | sed -n 's/.*redo done at .* elapsed: \([0-9.]*\) s.*/\1/p' | head -n 1)
	if [ -z "$a" ] || [ -z "$b" ] || [ -z "${R[recovery_s]}" ]; then
		tail -n 20 "$WL_LOG" >&2
		t_fail "$WL_CONFIG: no 'redo starts at' / 'redo done at ... elapsed' in the recovery log"
	fi
	R[restart_s]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	R[recovery_wal_bytes]=$(($(lsn "$b") - $(lsn "$a")))
}

# bill DRIVER WALL WAIT: add a segment's driver and wall seconds and the
# checkpoint wait that followed it to the run's R[seconds], R[wall_seconds]
# (both with the wait) and R[checkpoint_wait_s].
bill() {
	read -r 'R[seconds]' 'R[wall_seconds]' 'R[checkpoint_wait_s]' <<<"$(awk -v s="${R[seconds]}" \
		-v w="${R[wall_seconds]}" -v c="${R[checkpoint_wait_s]}" -v d="$1" -v l="$2" -v t="$3" \
		'BEGIN { printf "%.3f %.3f %.3f", s + d + t, w + l + t, c + t }')"
}

# fixed CONFIG WORKLOAD REP K: one fixed-work run.  Its seconds are the
# driver's own (without start-up and connections) plus the time the load
# stood still waiting for the previous segment's checkpoint.  K "walMB"
# (the size-triggered regime): no CHECKPOINT is issued during the load,
# max_wal_size is MB and the server checkpoints by WAL volume, so that a
# configuration that writes more WAL (full-page images) checkpoints more
# often, and writes more images again: the feedback a fixed K leaves out.
# (At 32 MB, PostgreSQL 15's trigger is one 16 MB segment: a checkpoint
# is requested each time a segment fills.)  The load then runs as one
# segment; its checkpoints are counted, then one CHECKPOINT is waited for,
# as after the fixed-K regime's last segment, and its time counted in the
# run's seconds (a configuration whose WAL triggers few checkpoints leaves
# more to it), so that device bytes cover all of the load's pages and the
# crash recovery replays only the extra segment, of the warm-up's size.
fixed() {
	local config=$1 wl=$2 rep=$3 k=$4 d0 w0 r0 ck='' tw wall drv w0t seg lat segs maxwal='' extra=$4
	R=() ST=()
	R[mode]=fixed R[workload]=$wl R[rep]=$rep R[ckpt_every]=$k R[transactions]=$events
	R[checkpoint_waits]=0 R[checkpoint_wait_s]=0 R[seconds]=0 R[wall_seconds]=0
	if [[ $k == wal* ]]; then
		maxwal=${k#wal}MB segs=1 k=$events extra=$warmup
	else
		segs=$((events / k))
	fi
	start "$config" "$wl" "$rep" 1d "$maxwal"
	d0=$(bench_bytes data) w0=$(bench_bytes wal) r0=$(bench_bytes data-read)
	: >"$WL_TMP/run.lats"
	for _ in $(seq 1 "$segs"); do
		# (A failure inside $(...) ends only the subshell: check it here.)
		seg=$(drive "$wl" "$k" "$WL_TMP/run.lats") || t_fail "$config $wl: a segment failed"
		read -r wall drv <<<"$seg"
		tw=0
		# The previous segment's checkpoint must be over before the next starts.
		if [ -n "$ck" ]; then
			if kill -0 "$ck" 2>/dev/null; then R[checkpoint_waits]=$((R[checkpoint_waits] + 1)); fi
			w0t=$(date +%s.%N)
			wait "$ck" || t_fail "$config: CHECKPOINT failed"
			tw=$(awk -v a="$w0t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
		fi
		bill "$drv" "$wall" "$tw"
		[ -n "$maxwal" ] && continue
		checkpoint &
		ck=$!
	done
	[ -z "$ck" ] || wait "$ck" || t_fail "$config: the last CHECKPOINT failed"
	pg_stats
	if [ -n "$maxwal" ]; then
		# Billed to the run, as the fixed-K regime's last checkpoint is: a
		# configuration whose little WAL triggers no checkpoint during the
		# load leaves its pages' writing to this one.
		w0t=$(date +%s.%N)
		checkpoint || t_fail "$config: the CHECKPOINT after the load failed"
		tw=$(awk -v a="$w0t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
		R[checkpoint_waits]=$((R[checkpoint_waits] + 1))
		bill 0 0 "$tw"
	fi
	sync
	R[data_dev_bytes]=$(($(bench_bytes data) - d0))
	R[wal_dev_bytes]=$(($(bench_bytes wal) - w0))
	R[data_dev_read_bytes]=$(($(bench_bytes data-read) - r0))
	lat=$(latstats "$WL_TMP/run.lats") || t_fail "$config $wl: no latencies"
	read -r 'R[lat_avg_ms]' 'R[lat_p95_ms]' 'R[lat_p99_ms]' <<<"$lat"
	recovery "$wl" "$extra"
	wl_pg_stop || t_fail "$config: clean stop failed"
	[ "${page_cache:-0}" -eq 0 ] || bench_squeeze_held
	row
	t_log "$config $wl K=${R[ckpt_every]} rep $rep: ${R[checkpoints_req]} checkpoints, ${R[tps]} TPS (driver start-up $(awk -v w="${R[wall_seconds]}" -v s="${R[seconds]}" 'BEGIN { printf "%.1f", w - s }') s more), p99 ${R[lat_p99_ms]} ms, WAL ${R[wal_bytes_per_txn]} B/txn, FPI/txn ${R[fpi_per_txn]}, data ${R[data_dev_bytes_per_txn]} B/txn, redo ${R[recovery_s]} s of ${R[recovery_wal_bytes]} WAL bytes, ${R[autovacuums]} autovacuum/analyze"
	bench_release
}

# series_base WORKLOAD CONFIG REP: where a timed run's series go (the
# first repetition's without a suffix, as before there were repetitions).
series_base() {
	local b=$out/series/${1/:/-}-$2
	[ "$3" -eq 1 ] || b+=-r$3
	echo "$b"
}

# timed CONFIG WORKLOAD REP: SEC seconds with the 30 s checkpoint timer;
# the per-second TPS to DIR/series/WORKLOAD-CONFIG[-rREP].tps ("second
# tps"), the checkpoints to .ckpt ("start end", seconds since the run's
# start).  Device bytes are read at the end of the load, after a sync (what
# the server wrote to the kernel during the load, not the shutdown's
# checkpoint).  Its K column is "timedSEC": runs of another length are
# another cell.
timed() {
	local config=$1 wl=$2 rep=$3 d0 w0 r0 t0 base lat
	R=() ST=()
	R[mode]=timed R[workload]=$wl R[rep]=$rep R[ckpt_every]=timed$timed
	start "$config" "$wl" "$rep" 30s
	base=$(series_base "$wl" "$config" "$rep")
	d0=$(bench_bytes data) w0=$(bench_bytes wal) r0=$(bench_bytes data-read)
	t0=$(date +%s.%N)
	case $wl in
	pgbench-*)
		local pgopt=()
		[ "$wl" = pgbench-N ] && pgopt=(-N)
		wl_pgbench "${pgopt[@]}" -T "$timed" -P 1
		awk '/^progress:/ { gsub(/,/, ""); print $2, $4 }' "$WL_TMP/drive.out" >"$base.tps"
		R[transactions]=$(awk '/number of transactions actually processed:/ { split($NF, a, "/"); print a[1] }' "$WL_TMP/drive.out")
		cat "$WL_TMP"/pgblog* | awk '{ printf "%.3f 1\n", $3 / 1000 }' >"$WL_TMP/run.lats"
		;;
	*)
		local rand=()
		case $wl in *:uniform) rand=(--rand-type=uniform) ;; esac
		wl_sysbench "${wl%%:*}" "${rand[@]}" --time="$timed" --report-interval=1 --histogram=on run \
			>"$WL_TMP/drive.out" 2>&1 || { tail -n 20 "$WL_TMP/drive.out" >&2; t_fail "sysbench $wl failed"; }
		awk '/^\[ *[0-9]+s \]/ { s = $2; sub(/s$/, "", s); for (i = 1; i < NF; i++) if ($i == "tps:") print s, $(i + 1) }' \
			"$WL_TMP/drive.out" >"$base.tps"
		R[transactions]=$(awk '/transactions:/ { print $2 }' "$WL_TMP/drive.out")
		awk '/^ *[0-9.]+ \|/ { print $1, $NF }' "$WL_TMP/drive.out" >"$WL_TMP/run.lats"
		;;
	esac
	R[seconds]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
	R[wall_seconds]=${R[seconds]}
	case ${R[transactions]} in '' | *[!0-9]* | 0) t_fail "$config $wl: no transactions in the timed run" ;; esac
	sync
	R[data_dev_bytes]=$(($(bench_bytes data) - d0))
	R[wal_dev_bytes]=$(($(bench_bytes wal) - w0))
	R[data_dev_read_bytes]=$(($(bench_bytes data-read) - r0))
	pg_stats
	wl_pg_stop || t_fail "$config: clean stop failed"
	# "checkpoint starting" / "checkpoint complete" with log_line_prefix %m.
	awk -v t0="$t0" '
		/checkpoint starting:/ || /checkpoint complete:/ {
			cmd = "date -d \"" $1 " " $2 " " $3 "\" +%s.%N"; cmd | getline e; close(cmd)
			if ($0 ~ /starting:/) s = e - t0; else if (s != "") { printf "%.1f %.1f\n", s, e - t0; s = "" }
		}' "$WL_LOG" | awk -v end="${R[seconds]}" '$1 >= 0 && $1 <= end' >"$base.ckpt" # not the shutdown's
	lat=$(latstats "$WL_TMP/run.lats") || t_fail "$config $wl: no latencies"
	read -r 'R[lat_avg_ms]' 'R[lat_p95_ms]' 'R[lat_p99_ms]' <<<"$lat"
	# Per-second TPS after the first 5 s (the ramp-up): its coefficient of variation.
	R[tps_cv]=$(awk '$1 > 5 { s += $2; q += $2 * $2; n++ } END { if (n > 1 && s > 0) printf "%.3f", sqrt((q - s * s / n) / (n - 1)) / (s / n); else print "NA" }' "$base.tps")
	[ "${page_cache:-0}" -eq 0 ] || bench_squeeze_held
	row
	t_log "$config $wl timed ${timed}s rep $rep: ${R[tps]} TPS (per-second CV ${R[tps_cv]}), p99 ${R[lat_p99_ms]} ms, $(wc -l <"$base.ckpt") checkpoints during the run"
	bench_release
}

# order REP [LIST]: the configurations of the array named LIST (default
# cfg_list) in this repetition's order: row REP of a Williams design (a
# Latin square in which every configuration follows every other one equally
# often), so that none always runs first or last, or right after the same
# neighbour; with an odd number of configurations every other cycle of rows
# runs mirrored.
order() {
	local rep=$1 j e row=()
	local -n list=${2:-cfg_list}
	local n=${#list[@]}
	for j in $(seq 0 $((n - 1))); do
		if [ "$j" -eq 0 ]; then e=0; elif [ $((j % 2)) -eq 1 ]; then e=$(((j + 1) / 2)); else e=$((n - j / 2)); fi
		row+=("${list[$(((e + rep - 1) % n))]}")
	done
	if [ $((n % 2)) -eq 1 ] && [ $(((rep - 1) / n % 2)) -eq 1 ]; then
		for j in $(seq $((n - 1)) -1 0); do echo "${row[$j]}"; done
	else
		printf '%s\n' "${row[@]}"
	fi
}

# bench_matrix: every fixed-work run (repetitions outermost, each cell's
# configurations in order()), then the timed runs (timed_reps repetitions,
# interleaved the same way); runs already in bench.csv are skipped.  Sets
# RAN (runs done now) and TOTAL.  "bench_matrix count" runs nothing and
# prints how many runs bench.csv does not hold yet.
# Usage: bench_matrix run | count
bench_matrix() {
	local rep wl k config n=0 treps=${timed_reps:-1} count='' pending=0
	case ${1:-} in run) ;; count) count=1 ;; *) t_fail "bench_matrix run | count, not '${1:-}'" ;; esac
	RAN=0
	TOTAL=$((reps * ${#wl_list[@]} * ${#k_list[@]} * ${#cfg_list[@]}))
	[ "$timed" -eq 0 ] || TOTAL=$((TOTAL + treps * ${#wl_list[@]} * ${#timed_list[@]}))
	for rep in $(seq 1 "$reps"); do
		for wl in "${wl_list[@]}"; do
			for k in "${k_list[@]}"; do
				for config in $(order "$rep"); do
					n=$((n + 1))
					if done_already fixed "$wl" "$rep" "$k" "$config"; then continue; fi
					if [ -n "$count" ]; then pending=$((pending + 1)); continue; fi
					t_log "run $n of $TOTAL: $config, $wl, $events transactions, CHECKPOINT every $k, repetition $rep"
					fixed "$config" "$wl" "$rep" "$k"
					RAN=$((RAN + 1))
				done
			done
		done
	done
	if [ "$timed" -gt 0 ]; then
		for rep in $(seq 1 "$treps"); do
			for wl in "${wl_list[@]}"; do
				for config in $(order "$rep" timed_list); do
					n=$((n + 1))
					if done_already timed "$wl" "$rep" "timed$timed" "$config"; then continue; fi
					if [ -n "$count" ]; then pending=$((pending + 1)); continue; fi
					t_log "run $n of $TOTAL: $config, $wl, ${timed}s timed, checkpoint_timeout 30s, repetition $rep"
					timed "$config" "$wl" "$rep"
					RAN=$((RAN + 1))
				done
			done
		done
	fi
	[ -z "$count" ] || echo "$pending"
}

# bench_check: every row of bench.csv as it must be (the --check of the
# tests): exact work, N/K requested checkpoints (walMB: the server's own)
# and no timed one, full-page
# images only with full_page_writes on, WAL replayed by the recovery, a
# per-second series and the timer's checkpoints for the timed runs.
bench_check() {
	local bad
	# Every row of this invocation's matrix (its configurations, workloads,
	# K and N, timed length), as it must be; rows of other runs in the
	# same CSV are not this invocation's to judge.
	bad=$(awk -F, -v n="$events" -v ks="${k_list[*]}" -v timed="$timed" -v series="$out/series" \
		-v cs="${cfg_list[*]}" -v tcs="${timed_list[*]}" -v ws="${wl_list[*]}" '
		BEGIN { split(ks, a, " "); for (i in a) K[a[i]] = 1; split(cs, a, " "); for (i in a) C[a[i]] = 1
			split(tcs, a, " "); for (i in a) TC[a[i]] = 1; split(ws, a, " "); for (i in a) W[a[i]] = 1 }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		function f(name) { return $(c[name]) }
		function bad(why) { printf "%s %s %s rep %s K=%s: %s\n", f("mode"), f("config"), f("workload"), f("rep"), f("ckpt_every"), why }
		!(f("workload") in W) { next }
		f("mode") == "fixed" && !(f("config") in C && f("ckpt_every") in K && f("transactions") == n) { next }
		f("mode") == "timed" && !(f("config") in TC && f("ckpt_every") == "timed" timed) { next }
		{
			if (f("tps") + 0 <= 0) bad("no throughput")
			if (f("full_page_writes") == "on" && f("wal_fpi") + 0 == 0) bad("full_page_writes on but no full-page image")
			if (f("full_page_writes") == "off" && f("wal_fpi") + 0 > 0) bad("full_page_writes off but " f("wal_fpi") " full-page images")
			if (f("data_dev_bytes") + 0 <= 0 || f("wal_dev_bytes") + 0 <= 0) bad("a device saw no writes")
			if (f("page_cache_mb") + 0 > 0 && f("data_dev_read_bytes") + 0 <= 0) bad("the page cache was limited to " f("page_cache_mb") " MB but no read reached the data device")
			if (f("mode") == "fixed") {
				if (f("transactions") != n) bad(f("transactions") " transactions, not " n)
				# walMB: the server requests its own, by WAL volume.
				if (f("ckpt_every") !~ /^wal/ && f("checkpoints_req") != n / f("ckpt_every")) bad(f("checkpoints_req") " requested checkpoints, not " n / f("ckpt_every"))
				if (f("checkpoints_timed") != 0) bad(f("checkpoints_timed") " timed checkpoints in a fixed-work run")
				if (f("recovery_wal_bytes") + 0 <= 0) bad("crash recovery replayed no WAL")
			} else {
				file = series "/" f("workload") "-" f("config") (f("rep") == 1 ? "" : "-r" f("rep"))
				sub(/:/, "-", file)
				lines = 0
				while ((getline l < (file ".tps")) > 0) lines++
				if (lines < timed - 2) bad("per-second series of " lines " lines for " timed " s")
				if (timed >= 40 && f("checkpoints_timed") + 0 < 1) bad("no timed checkpoint in " timed " s")
			}
		}' "$csv")
	[ -z "$bad" ] || t_fail "runs not as they must be:"$'\n'"$bad"
	t_log "check: every row has its exact work, checkpoints, images and recovery"
}
