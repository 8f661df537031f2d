#!/bin/bash
# The benchmark matrix (runs in the guest): sysbench on PostgreSQL for each
# configuration, side by side in one boot, in an order rotated per
# repetition so that drift in the machine's speed spreads over all of them.
# Usage: bench.sh [--configs LIST] [--workloads LIST] [--reps N]
#                 [--time SEC] [--warmup SEC] [--dma-us US] [--out DIR]
# LIST is comma separated.  Each run: fresh devices and cluster (lib.sh),
# a warm-up run, statistics reset, the measured run with a latency
# histogram; then pg_stat_wal, pg_stat_bgwriter and the tornblk counters.
# One CSV row per run goes to DIR/bench.csv.  --dma-us US: the devices
# capture write data US microseconds per page after submission, as a real
# device's DMA does (0, the default, copies it at submission): only then
# does a write() into a block under writeback wait where a file has stable
# writes, so only then is that cost of the buffered fix in the numbers.
# vm: mem=3072 timeout=2400
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

configs=$(wl_configs | paste -sd,) # every configuration of configs.tsv
workloads=oltp_write_only,oltp_read_write
reps=2 secs=30 warmup=10 out=/lbs-out dma_us=0
while [ $# -gt 0 ]; do
	case $1 in
	--configs) configs=${2:?}; shift 2 ;;
	--workloads) workloads=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--time) secs=${2:?}; shift 2 ;;
	--warmup) warmup=${2:?}; shift 2 ;;
	--dma-us) dma_us=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
T_NAME=bench
t_require sysbench runuser
for v in "$reps" "$secs" "$warmup" "$dma_us"; do
	case $v in '' | *[!0-9]*) t_fail "--reps, --time, --warmup and --dma-us take whole numbers, got '$v'" ;; esac
done
WL_DMA_US=$dma_us
IFS=, read -r -a cfg_list <<<"$configs"
IFS=, read -r -a wl_list <<<"$workloads"
for c in "${cfg_list[@]}"; do wl_config "$c"; done
for w in "${wl_list[@]}"; do
	case $w in oltp_write_only | oltp_read_write | oltp_update_index) ;;
	*) t_fail "unknown workload '$w' (oltp_write_only, oltp_read_write, oltp_update_index)" ;;
	esac
done
csv=$out/bench.csv
echo "kernel,config,xfs_bs,pawu,atomic_unit,full_page_writes,dma_delay_us,workload,rep,threads,tables,table_size,seconds,transactions,tps,lat_avg_ms,lat_p95_ms,lat_p99_ms,wal_bytes,wal_fpi,wal_records,checkpoints,data_dev_bytes,wal_dev_bytes,wal_bytes_per_txn,fpi_per_txn,data_dev_bytes_per_txn" >"$csv"

wl_template
WL_FPW="on for baseline, off for the others" wl_pg_settings >"$out/pg-settings.conf"

# percentiles FILE: "p95 p99" in ms from sysbench's latency histogram.
percentiles() {
	awk '/^ *[0-9.]+ \|/ { v[n] = $1; c[n] = $NF; t += $NF; n++ }
	END {
		if (!t) { print "NA NA"; exit }
		for (i = 0; i < n; i++) {
			s += c[i]
			if (!p95 && s >= 0.95 * t) p95 = v[i]
			if (!p99 && s >= 0.99 * t) p99 = v[i]
		}
		print p95, p99
	}' "$1"
}

run_one() { # run_one CONFIG WORKLOAD REP
	local config=$1 wl=$2 rep=$3 d0 w0 d1 w1 txns tps avg p95 p99 wal ckpt
	wl_config "$config"
	WL_SEED=$rep wl_device
	wl_pg_start || { tail -n 20 "$WL_LOG"; t_fail "$config: server did not start"; }
	wl_sysbench "$wl" --time="$warmup" run >/tmp/warmup.out 2>&1 ||
		{ tail -n 20 /tmp/warmup.out; t_fail "$config $wl: warm-up run failed"; }
	psql_q -c "SELECT pg_stat_reset_shared('wal'), pg_stat_reset_shared('bgwriter')" >/dev/null ||
		t_fail "resetting statistics failed"
	d0=$(tb_stat bytes_written)
	w0=$(t_tornblk_stat "$WL_WALDEV" bytes_written)
	wl_sysbench "$wl" --time="$secs" --histogram=on run >/tmp/run.out 2>&1 ||
		{ tail -n 20 /tmp/run.out; t_fail "$config $wl: sysbench run failed"; }
	wal=$(psql_q -F, -c "SELECT wal_bytes, wal_fpi, wal_records FROM pg_stat_wal") ||
		t_fail "pg_stat_wal query failed"
	ckpt=$(psql_q -c "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter") ||
		t_fail "pg_stat_bgwriter query failed"
	wl_pg_stop || t_fail "$config: clean stop failed"
	sync
	d1=$(tb_stat bytes_written)
	w1=$(t_tornblk_stat "$WL_WALDEV" bytes_written)
	txns=$(awk '/transactions:/ { print $2 }' /tmp/run.out)
	tps=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' /tmp/run.out)
	avg=$(awk '$1 == "avg:" { print $2; exit }' /tmp/run.out)
	read -r p95 p99 <<<"$(percentiles /tmp/run.out)"
	if [ -z "$txns" ] || [ "$txns" -eq 0 ]; then
		t_fail "$config $wl: no transactions in the sysbench output"
	fi
	# Device bytes include the writeback that the clean stop forces: the
	# data the run dirtied, whenever it reaches the disk.
	awk -v OFS=, -v k="$(uname -r)" -v cfg="$config" -v bs="$WL_XFS_BS" -v pawu="$WL_PAWU" \
		-v au="$WL_ATOMIC" -v fpw="$WL_FPW" -v dma="$WL_DMA_US" -v wl="$wl" -v rep="$rep" \
		-v th="$WL_THREADS" \
		-v tb="$WL_TABLES" -v ts="$WL_TABLE_SIZE" -v secs="$secs" -v txns="$txns" -v tps="$tps" \
		-v avg="$avg" -v p95="$p95" -v p99="$p99" -v wal="$wal" -v ckpt="$ckpt" \
		-v dd=$((d1 - d0)) -v wd=$((w1 - w0)) 'BEGIN {
		split(wal, w, ",")
		print k, cfg, bs, pawu, au, fpw, dma, wl, rep, th, tb, ts, secs, txns, tps, avg, p95, p99,
			w[1], w[2], w[3], ckpt, dd, wd, sprintf("%.0f", w[1] / txns),
			sprintf("%.3f", w[2] / txns), sprintf("%.0f", dd / txns)
	}' >>"$csv"
	t_log "$config $wl rep $rep: $tps TPS, p95 $p95 ms, WAL $(awk -v w="${wal%%,*}" -v t="$txns" 'BEGIN { printf "%.0f", w / t }') B/txn, $ckpt checkpoints"
	wl_device_remove
}

total=$((reps * ${#wl_list[@]} * ${#cfg_list[@]}))
n=0
for rep in $(seq 1 "$reps"); do
	for wl in "${wl_list[@]}"; do
		# rotate the configuration order with the repetition
		for i in $(seq 0 $((${#cfg_list[@]} - 1))); do
			config=${cfg_list[$(((i + rep - 1) % ${#cfg_list[@]}))]}
			n=$((n + 1))
			t_log "run $n of $total: $config, $wl, repetition $rep (${warmup}s warm-up, ${secs}s measured)"
			run_one "$config" "$wl" "$rep"
		done
	done
done
t_pass "$total runs in $csv"
