#!/bin/bash
# Benchmark (not a test): tornblk against brd on the same guest, the same
# atomicw bench run on each: 16k random writes, batches of 4, fsync after
# each batch.  Writes $LBS_OUT/tornblk-vs-brd.csv.
# Run: guest-image/run-vm --build build --out results/tornblk-bench -- /lbs/src/kernel/tornblk/bench.sh
# not-a-test: a benchmark of the model itself (its numbers are in results/tornblk-bench)
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
modprobe brd rd_nr=1 rd_size=$((256 * 1024)) || t_fail "modprobe brd failed"
tb=$(t_tornblk_create bench size_mb=256 pawu=16384 physical_block_size=16384 \
	atomic_unit_min=4096 atomic_unit_max=16384)
out=$LBS_OUT/tornblk-vs-brd.csv
echo "device,mode,writes,iops,p50_us,p99_us,p999_us" >"$out"
for dev in /dev/ram0 "$tb"; do
	"$ATOMICW" bench "$dev" -b 16k -q 4 -t 5 --rounds 3 --modes plain --csv /tmp/b.csv >&2 ||
		t_fail "bench on $dev failed"
	tail -n +2 /tmp/b.csv | awk -F, -v d="${dev#/dev/}" '{ print d "," $1 "," $5 "," $7 "," $8 "," $9 "," $10 }' >>"$out"
done
cat "$out"
