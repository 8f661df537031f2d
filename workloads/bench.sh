#!/bin/bash
# The benchmark matrix (runs in the guest): PostgreSQL under sysbench and
# pgbench for each configuration, side by side in one boot.
# Usage: bench.sh [--configs LIST] [--workloads LIST] [--reps N]
#                 [--events N] [--ckpt-every LIST] [--warmup-events N]
#                 [--timed SEC] [--timed-reps N] [--dma-delay-us US] [--out DIR]
#                 [--timed-configs LIST] [--table-size ROWS]
#                 [--pgbench-scale S] [--page-cache MB] [--check]
# LIST is comma separated.  --table-size and --pgbench-scale size the data
# set (defaults in lib.sh); --page-cache MB leaves about MB of memory
# available during each run (the rest of the guest's free memory locked
# away after the warm-up, lib.sh's wl_squeeze): with a data set larger than
# that, reads
# reach the device, as on a server whose data does not fit in memory (the
# runs are a cell of their own, fixed work only; the kernel's dirty limits
# follow the memory left, so writeback starts sooner there too; a run
# fails if the lock did not hold or the devices ran short of memory; 0,
# the default: not limited); --check (the test) asserts what every run of
# this invocation recorded: exactly N transactions, exactly N/K requested
# checkpoints (walMB: the server's own) and no timed one, full-page images
# only with full_page_writes on, WAL replayed by the crash recovery, a
# per-second series and the timer's checkpoints for the timed runs, and
# reads from the data device when the page cache is limited; it starts
# from an empty DIR/bench.csv (a test runs its matrix, it does not resume).
#
# Fixed work (one cell per workload and K of --ckpt-every): each run does
# exactly N transactions (--events) after a warm-up of --warmup-events and
# a checkpoint, and issues a CHECKPOINT after every K of them: the load runs
# in segments of K transactions, each segment's checkpoint overlapping the
# next segment (the last one waited for).  Full-page images and WAL per
# transaction then follow K, not the emulator's speed of the moment.  K
# may be walMB instead (e.g. wal32), the size-triggered regime: no
# CHECKPOINT is issued, max_wal_size is MB, and the server checkpoints by
# WAL volume, as a real server does, so that full-page images bring
# checkpoints sooner.  Then one more segment runs (walMB: of the warm-up's
# size), the server is killed (kill -9), and the restart's crash recovery
# time and replayed WAL are recorded.
# Timed (--timed SEC, 0 for none): per workload and configuration
# --timed-reps runs (default 1, interleaved as the fixed-work ones) of SEC
# seconds with checkpoint_timeout = 30s, their per-second TPS and the
# checkpoints' start and end kept in DIR/series/ for the TPS-over-time plot
# and the variability (--timed-configs: only for those configurations;
# default all).
# --reps 0 with --timed: timed runs only.
# Repetitions interleave: every fixed-work cell runs each configuration
# once per repetition, in the order of a Williams design (order() below),
# so that none always runs first or last or next to the same neighbour.
# Resumable: runs already in DIR/bench.csv (same columns) are skipped.
#
# Workloads: oltp_write_only, oltp_read_write, oltp_update_index (sysbench;
# NAME:uniform for --rand-type=uniform, else sysbench's default "special"
# distribution), pgbench-tpcb (pgbench's standard script), pgbench-N (-N,
# without the branch and teller updates).  Each run: fresh devices and
# cluster (lib.sh, profile bench: a data set about three times
# shared_buffers, autovacuum on).  --dma-delay-us US: the devices capture
# write data US microseconds per page after submission, as a real device's
# DMA does (default configs.sh's; 0 copies it at submission): only then does
# a write() into a block under writeback wait where a file has stable
# writes, so only then is that cost of the buffered fix in the numbers.
# vm: mem=3072 timeout=2400
# test: bench.page-cache -- --configs baseline,lbs-atomic --workloads pgbench-N --reps 1 --events 400 --ckpt-every wal32 --warmup-events 40 --table-size 5000 --pgbench-scale 1 --page-cache 8 --check
# test: bench -- --configs baseline,lbs-atomic --workloads oltp_write_only,pgbench-N --reps 1 --events 400 --ckpt-every 200,wal32 --warmup-events 40 --timed 40 --timed-reps 2 --timed-configs lbs-atomic --table-size 5000 --pgbench-scale 1 --check
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
WL_PROFILE=bench
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh
# shellcheck source=workloads/benchcore.sh
. /lbs/src/workloads/benchcore.sh

# bench_measurable NAME: a configuration this benchmark measures: its
# synchronous_commit on (an asynchronous commit's TPS is not comparable)
# and its pg_wal on a device of its own (whose bytes the WAL columns are).
bench_measurable() { wl_config "$1"; [ "$WL_SYNC" = on ] && wl_wal_own; }
# Every configuration of configs.tsv it can measure.
configs=$(for c in $(wl_configs all); do if bench_measurable "$c"; then echo "$c"; fi; done | paste -sd,)
workloads=oltp_write_only
reps=2 events=2000 ckpt_every=500 warmup=200 timed=0 timed_reps=1 out=/lbs-out check=0
timed_configs='' page_cache=0
while [ $# -gt 0 ]; do
	case $1 in
	--configs) configs=${2:?}; shift 2 ;;
	--workloads) workloads=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--events) events=${2:?}; shift 2 ;;
	--ckpt-every) ckpt_every=${2:?}; shift 2 ;;
	--warmup-events) warmup=${2:?}; shift 2 ;;
	--timed) timed=${2:?}; shift 2 ;;
	--timed-configs) timed_configs=${2:?}; shift 2 ;;
	--timed-reps) timed_reps=${2:?}; shift 2 ;;
	--dma-delay-us) WL_DMA_DELAY_US=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--table-size) WL_TABLE_SIZE=${2:?}; shift 2 ;;
	--pgbench-scale) WL_PGBENCH_SCALE=${2:?}; shift 2 ;;
	--page-cache) page_cache=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
T_NAME=bench
t_require sysbench runuser
for v in "$reps" "$events" "$warmup" "$timed" "$timed_reps" "$WL_DMA_DELAY_US" "$WL_TABLE_SIZE" "$WL_PGBENCH_SCALE" "$page_cache"; do
	case $v in '' | *[!0-9]*) t_fail "--reps, --events, --warmup-events, --timed, --timed-reps, --dma-delay-us, --table-size, --pgbench-scale and --page-cache take whole numbers, got '$v'" ;; esac
done
page_cache=$((10#$page_cache))
# (The timed runs' per-second series are named by workload and
# configuration alone.)
[ "$page_cache" -eq 0 ] || [ "$timed" -eq 0 ] ||
	t_fail "--page-cache goes with fixed-work runs only, not with --timed"

[ "$timed_reps" -ge 1 ] || t_fail "--timed-reps must be at least 1"
if [ "$WL_TABLE_SIZE" -lt 1000 ] || [ "$WL_PGBENCH_SCALE" -lt 1 ]; then
	t_fail "--table-size must be at least 1000 rows and --pgbench-scale at least 1"
fi
WL_TEMPLATE_BASE=$WL_TEMPLATE_BASE-${WL_TABLE_SIZE}-$WL_PGBENCH_SCALE
[ "$reps" -ge 1 ] || [ "$timed" -gt 0 ] || t_fail "--reps 0 runs no fixed work: give --timed SEC (timed runs only)"
IFS=, read -r -a cfg_list <<<"$configs"
IFS=, read -r -a wl_list <<<"$workloads"
IFS=, read -r -a k_list <<<"$ckpt_every"
IFS=, read -r -a timed_list <<<"${timed_configs:-$configs}"
for c in "${cfg_list[@]}" "${timed_list[@]}"; do
	bench_measurable "$c" ||
		t_fail "$c: the benchmark measures configurations with synchronous_commit on and pg_wal on its own device (configs.tsv), not synchronous_commit $WL_SYNC, pg_wal $WL_PGWAL"
done
bench_validate

csv=$out/bench.csv
# A test runs its whole matrix: what an earlier boot left in its output
# directory (run-vm's --out, kept between runs) is not resumed.
if [ "$check" -eq 1 ] && [ -e "$csv" ]; then
	t_log "--check: starting over (removing $csv and $out/series from an earlier run)"
	rm -rf "$csv" "$out/series"
fi
mkdir -p "$out/series"
wl_csv "$csv" "$BENCH_COLUMNS" add

pending=$(bench_matrix count)
if [ "$pending" -eq 0 ] && [ "$check" -eq 0 ]; then
	t_pass "nothing to run: every run of this matrix is in $csv"
fi
t_log "$pending runs of this matrix to do"
# A template for each page size the configurations use.
page_sizes=$(wl_page_sizes "${cfg_list[@]}" "${timed_list[@]}") ||
	t_fail "reading the configurations' page sizes failed"
for WL_PG_BS in $page_sizes; do
	wl_pg_build
	wl_template
done
WL_FPW="from configs.tsv" WL_WALCOMP="from configs.tsv" WL_SYNC=on wl_pg_settings >"$out/pg-settings.conf"

# The guest's storage: tornblk devices per configuration (lib.sh).
bench_storage() { wl_config "$1"; wl_pg_build; WL_SEED=$2 wl_device; }
bench_release() { wl_unsqueeze; wl_device_remove; }
bench_bytes() {
	case $1 in
	data) tb_stat bytes_written ;;
	data-read) tb_stat bytes_read ;;
	*) tb_walstat bytes_written ;;
	esac
}
bench_squeeze() { wl_squeeze "$1"; }
bench_squeeze_held() { wl_squeeze_held; }
bench_drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

bench_matrix run
[ "$check" -eq 0 ] || bench_check
t_pass "$RAN runs added ($((TOTAL - RAN)) already there) in $csv"
