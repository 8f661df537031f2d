#!/bin/bash
# atomicw's I/O benchmark (runs in the guest): 16k page writes on 16k-block
# XFS in batches with an fsync after each, as a database flushes, three ways:
# plain O_DIRECT (no torn-write protection), RWF_ATOMIC, and doublewrite
# emulation (each batch first written to a doublewrite area and fsynced, as
# InnoDB protects its pages).  Two devices:
#   tornblk: 16k atomic unit (the lbs-atomic device of configs.tsv), with
#            the same DMA capture as the PostgreSQL runs
#            (--dma-delay-us, default configs.sh's);
#   virtio:  the plain virtio disk QEMU gives the guest (/dev/vdb), which
#            advertises no atomic writes: RWF_ATOMIC is refused there, and
#            the row says so instead of a number.
# Modes interleave in rounds (rotated each round); each round's IOPS go to
# DIR/iobench.csv (device, round, mode, block_size, writes, seconds, iops),
# so that ratios against plain O_DIRECT are taken within a round.
# Usage: iobench.sh [--rounds N] [--time SEC] [--qd N] [--dma-delay-us US] [--out DIR]
#                   [--check]
# --check (the vm.iobench test): every mode that ran has one row with
# writes per round, and the tornblk device ran all three modes.
# vm: disk=2G mem=2048 timeout=1800
# test: iobench -- --rounds 2 --time 1 --check
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/configs.sh
. /lbs/src/workloads/configs.sh

rounds=10 secs=3 qd=4 out=/lbs-out check=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--time) secs=${2:?}; shift 2 ;;
	--qd) qd=${2:?}; shift 2 ;;
	--dma-delay-us) WL_DMA_DELAY_US=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
for v in "$rounds" "$secs" "$qd"; do
	case $v in '' | *[!0-9]* | 0) t_fail "--rounds, --time and --qd take whole numbers above 0, got '$v'" ;; esac
done
case $WL_DMA_DELAY_US in '' | *[!0-9]*) t_fail "--dma-delay-us takes a whole number, got '$WL_DMA_DELAY_US'" ;; esac
t_require mkfs.xfs
csv=$out/iobench.csv
echo "device,round,mode,block_size,writes,seconds,iops" >"$csv"
mnt=/mnt/iob

# one LABEL DEV MODES: 16k XFS on DEV, a 256 MB file, the benchmark.
one() {
	local label=$1 dev=$2 modes=$3
	t_mkfs_xfs "$dev" 16384
	t_mount "$dev" "$mnt"
	# Written in full first: the benchmark overwrites allocated blocks, as a
	# database overwrites its pages, instead of allocating as it goes.
	dd if=/dev/zero of="$mnt/data" bs=1M count=256 oflag=direct status=none ||
		t_fail "$label: filling $mnt/data failed"
	t_log "$label: $modes, $rounds rounds of ${secs}s per mode, queue depth $qd"
	"$ATOMICW" bench "$mnt/data" -b 16k -q "$qd" -t "$secs" --rounds "$rounds" \
		--modes "$modes" --rounds-csv /tmp/rounds.csv >/tmp/iob.out 2>/tmp/iob.err ||
		{ cat /tmp/iob.err >&2; t_fail "$label: atomicw bench failed"; }
	cat /tmp/iob.out >&2
	tail -n +2 /tmp/rounds.csv | sed "s/^/$label,/" >>"$csv"
	umount "$mnt" || t_fail "umount $mnt failed"
}

tb=$(t_tornblk_create iob size_mb=512 cache_mb=128 logical_block_size=4096 \
	physical_block_size=16384 pawu=16384 atomic_unit_min=4096 atomic_unit_max=16384 \
	dma_delay_us="$WL_DMA_DELAY_US")
one tornblk "$tb" plain,atomic,doublewrite
t_tornblk_remove iob

vd=$(t_scratch_disk 1)
# The virtio disk must refuse RWF_ATOMIC: say so, measure the other two.
t_mkfs_xfs "$vd" 16384
t_mount "$vd" "$mnt"
rc=0
"$ATOMICW" probe "$mnt/probe" -b 16k --create 1m >/tmp/probe.out 2>&1 || rc=$?
umount "$mnt" || t_fail "umount $mnt failed"
if [ "$rc" -eq 0 ]; then
	one virtio "$vd" plain,atomic,doublewrite
else
	t_log "virtio: RWF_ATOMIC refused ($(tr '\n' ' ' </tmp/probe.out)): plain and doublewrite only"
	echo "virtio,0,atomic,16384,0,0,unsupported" >>"$csv"
	one virtio "$vd" plain,doublewrite
fi
if [ "$check" -eq 1 ]; then
	bad=$(awk -F, -v r="$rounds" 'NR > 1 && $7 != "unsupported" {
		n[$1 " " $3]++; if ($5 + 0 <= 0 || $7 + 0 <= 0) print "no writes: " $0 }
		END {
			for (m in n) if (n[m] != r) print m ": " n[m] " rows for " r " rounds"
			split("plain atomic doublewrite", ms, " ")
			for (i = 1; i <= 3; i++) if (!(("tornblk " ms[i]) in n)) print "tornblk ran no " ms[i]
		}' "$csv")
	[ -z "$bad" ] || t_fail "iobench rows not as they must be: $bad"
	t_log "check: every mode has one row per round"
fi
t_pass "$(($(wc -l <"$csv") - 1)) rows in $csv"
