#!/bin/bash
# Benchmark (not a test): what untorn buffered writes cost (the buffered
# part of the series: stable writes, a bounce-buffer copy per block, one bio
# and one ioend per block at writeback).  Two identical tornblk devices
# (4k sectors and power-fail units, atomic writes of 4k-16k: lbs-atomic-wb's
# storage), 16k XFS on each, one mounted as is (untorn) and one with
# nountorn (plain), measured in one boot, in interleaved rounds whose order
# alternates:
#   seq:   128 MiB written with dd bs=1M into a new file, then fsync (MB/s);
#   small: 8k writes at random 8k-aligned offsets of a 64 MiB file, an fsync
#          after every 8 (PostgreSQL's page size, a checkpoint's pattern),
#          COUNT of them (writes/s).
# Writes $LBS_OUT/untorn-cost.csv: round,mount,workload,amount,seconds,rate.
# Usage: untorn-cost.sh [--rounds N] [--count N] [--dma-delay-us US]
# Run: guest-image/run-vm --build build --out results/untorn-cost -- /lbs/src/kernel/tests/untorn-cost.sh
# not-a-test: a benchmark (its numbers are in results/untorn-cost)
# vm: mem=2048 timeout=1800
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

rounds=10 count=2000 dma_us=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--count) count=${2:?}; shift 2 ;;
	--dma-delay-us) dma_us=${2:?}; shift 2 ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
for v in "$rounds" "$count"; do
	case $v in '' | *[!0-9]* | 0) t_fail "--rounds and --count take whole numbers above 0, got '$v'" ;; esac
done
case $dma_us in '' | *[!0-9]*) t_fail "--dma-delay-us takes a whole number, got '$dma_us'" ;; esac
t_require mkfs.xfs dd
PROBE=/lbs/build/kernel/tests/untornprobe
[ -x "$PROBE" ] || t_fail "$PROBE is missing (build the kernel/tests helpers)"
out=$LBS_OUT/untorn-cost.csv
echo "round,mount,workload,amount,seconds,rate" >"$out"

for m in on off; do
	t_tornblk_create "cost$m" size_mb=1024 cache_mb=256 logical_block_size=4096 \
		physical_block_size=4096 pawu=4096 atomic_unit_min=4096 atomic_unit_max=16384 \
		dma_delay_us="$dma_us" >/dev/null
	t_mkfs_xfs "/dev/cost$m" 16384 -s size=4096
	opts=
	[ "$m" = on ] || opts=nountorn
	t_mount "/dev/cost$m" "/mnt/cost$m" "$opts"
	dd if=/dev/zero of="/mnt/cost$m/small" bs=1M count=64 conv=fsync status=none ||
		t_fail "$m: preparing the small-write file failed"
	t_log "$m: untorn_buffered_bytes $(cat "/sys/fs/xfs/cost$m/untorn_buffered_bytes")"
done
[ "$(cat /sys/fs/xfs/coston/untorn_buffered_bytes) $(cat /sys/fs/xfs/costoff/untorn_buffered_bytes)" = "16384 0" ] ||
	t_fail "the two mounts are not untorn and plain"

now_ns() { date +%s%N; }

# one ROUND MOUNT: both workloads on /mnt/costMOUNT, rows into $out.
one() {
	local r=$1 m=$2 dir=/mnt/cost$2 t0 t1 line
	sync
	t0=$(now_ns)
	dd if=/dev/zero of="$dir/seq" bs=1M count=128 conv=fsync status=none || t_fail "$m: seq failed"
	t1=$(now_ns)
	echo "$r,$m,seq,134217728,$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.6f", d / 1e9 }'),$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", 128 / (d / 1e9) }')" >>"$out"
	rm -f "$dir/seq"
	sync
	line=$("$PROBE" writes "$dir/small" 67108864 8192 8 "$count" "$r") || t_fail "$m: small writes failed: $line"
	awk -v r="$r" -v m="$m" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s,%s,small,%s,%.6f,%s\n", r, m, v["writes"], v["us"] / 1e6, v["per_s"] }' <<<"$line" >>"$out"
}

for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then one "$r" on; one "$r" off; else one "$r" off; one "$r" on; fi
	t_log "round $r of $rounds: $(tail -n 4 "$out" | tr '\n' ' ')"
done
for m in on off; do
	t_log "$m: $(t_tornblk_stat "cost$m" atomic_writes) REQ_ATOMIC of $(t_tornblk_stat "cost$m" writes) writes"
	umount "/mnt/cost$m"
	t_tornblk_remove "cost$m"
done
t_pass "$(($(wc -l <"$out") - 1)) rows in $out"
