#!/bin/bash
# The page-cache writeback race on 16k XFS, and the fix for files whose
# block the device writes atomically (patches: the buffered part).
# tornblk captures write data after submission (dma_delay_us), as a real
# device's DMA does.  atomicw race writes the first 8k half of a 16k block,
# starts its writeback and rewrites the second half for 20 ms (a hot
# page); then a power cut, and every 8k half must be whole.  Without
# stable writes the second half can change while its block is being
# captured, and the device keeps that mixed image: halves of sectors from
# two writes (torn), and, with the writer on another CPU copying into the
# page while tornblk reads it, sectors mixed inside (corrupt: a stamp whose
# checksum fails).  A half fsynced before is lost only as one of those.
#   racy:    a device without atomic writes (16k power-fail unit): the file
#            does not qualify, the race must mix halves (the control), no
#            write reaches the device as REQ_ATOMIC, write() never waits;
#   outside: a 16k atomic unit, but 4k XFS blocks (outside the unit range),
#   onelba:  4k XFS on a 4k-16k atomic unit (4k blocks are one logical
#            block, which the device never tears): today's behaviour, no
#            REQ_ATOMIC, no waiting;
#   atomic:  16k XFS on a 16k atomic unit (lbs-atomic): stable writes, so
#            write() waits for the block's writeback and no half is mixed,
#            and writeback reaches the device as whole, aligned 16k
#            REQ_ATOMIC writes;
#   atomicwb: the same on a device whose plain writes tear in 4k units and
#            that keeps only REQ_ATOMIC writes whole (lbs-atomic-wb);
#   lba16k:  16k XFS on a device of 16k logical blocks: a block is one
#            logical block, but the capture can mix old and new within it
#            all the same: stable writes and REQ_ATOMIC writeback as for
#            atomic, no half mixed;
#   atomicoff: atomicwb mounted with nountorn, the switch that turns untorn
#            buffered writes off: it must race as racy does (halves mixed,
#            no REQ_ATOMIC, no waiting), the control for the switch.
# Each mount reports in /sys/fs/xfs/NAME/untorn_buffered_bytes the block
# size it keeps untorn: 16384 for atomic, atomicwb and lba16k, 0 for the
# others (atomicoff included) (checked last, so that a kernel without the fix fails on the
# race itself).
# vm: mem=3072 timeout=900
# test: writeback-race kernels=default,debug serial=yes
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1

# The device sleeps dma_us between two pages of a capture (fsleep: 1 to 2
# times dma_us each), so a 16k block's writeback ends at least 3 delays
# after its capture began, and a write() that waits for it waits most of
# that.  A plain write() of 8k costs ~0.1 ms on the
# default kernel and was seen at 1.3 ms (p50) under KASAN; one delay of 3 ms
# stays well above it, and the waits (2 delays at least) well above that.
dma_us=3000

# run NAME XFS-BS PAWU ATOMIC-MIN ATOMIC-MAX [LBA [OPTS]]: one race on a new
# device of LBA-byte logical blocks (default 4096), XFS mounted with OPTS;
# sets MIXED (torn + corrupt halves), WAIT_US (p50 of the first write()
# after a writeback start), ROUNDS, ATOMIC_WRITES (REQ_ATOMIC writes the
# device saw during the race, which stamps every block once first) and
# CHANGED (pages tornblk saw changed while it captured them), PIECES (8k
# pieces it copied from two versions) and TORN (torn halves alone).
run() {
	local name=$1 bs=$2 lba=${6:-4096} mnt=/mnt/$1 atomic=() out before
	[ "$5" = 0 ] || atomic=(atomic_unit_min="$4" atomic_unit_max="$5")
	t_tornblk_create "$name" size_mb=512 logical_block_size="$lba" physical_block_size=16384 \
		pawu="$3" "${atomic[@]}" seed=11 dma_delay_us=$dma_us stable_writes=0 >/dev/null
	t_mkfs_xfs "/dev/$name" "$bs" -s size="$lba"
	t_mount "/dev/$name" "$mnt" "${7:-}"
	UNTORN[$name]=$(cat "/sys/fs/xfs/$name/untorn_buffered_bytes" 2>/dev/null || echo absent)
	dd if=/dev/zero of="$mnt/f" bs=1M count=4 conv=fsync status=none || t_fail "preparing $mnt/f failed"
	before=$(t_tornblk_stat "$name" atomic_writes)
	out=$("$ATOMICW" race "$mnt/f" --journal "/tmp/$name.j" -b 16k -t 10 --race-us 20000 --seed 3) ||
		t_fail "atomicw race on $name failed: $out"
	t_log "$name: $out"
	WAIT_US=$(sed -n 's/.*after writeback start: p50 \([0-9]*\) us.*/\1/p' <<<"$out")
	ROUNDS=$(sed -n 's/^race: \([0-9]*\) rounds.*/\1/p' <<<"$out")
	[ -n "$WAIT_US" ] || ROUNDS=0
	[ "${ROUNDS:-0}" -gt 0 ] ||
		t_fail "$name: atomicw race printed no rounds or no write() wait time"
	ATOMIC_WRITES=$(($(t_tornblk_stat "$name" atomic_writes) - before))
	CHANGED=$(t_tornblk_stat "$name" dma_pages_changed)
	PIECES=$(t_tornblk_stat "$name" dma_pieces_mixed)
	[ "$(t_tornblk_stat "$name" dma_uncounted)" = 0 ] ||
		t_fail "$name: the device left captured writes unchecked for mixed pieces (no memory for the snapshot)"
	t_log "$name: $(t_tornblk_stat "$name" dma_writes) writes captured after submission," \
		"$ATOMIC_WRITES REQ_ATOMIC, $CHANGED pages changed while captured, $PIECES 8k pieces copied mixed"
	# Every REQ_ATOMIC write the device saw (the race's and the file's
	# preparation) is one whole, aligned 16k block.  The size buckets are
	# powers of two, but the block layer only passes atomic writes of
	# multiples of atomic_unit_min up to atomic_unit_max (16k), so nothing
	# in the 16k bucket is other than 16k.
	[ "$(($(t_tornblk_hist_below "$name" atomic_size 16384) +
		$(t_tornblk_hist_above "$name" atomic_size 16384)))" = 0 ] ||
		t_fail "$name: REQ_ATOMIC writes other than 16k: $(grep atomic_size "/sys/kernel/debug/tornblk/$name/hist" | tr '\n' ' ')"
	[ "$(t_tornblk_hist_below "$name" atomic_align 16384)" = 0 ] ||
		t_fail "$name: REQ_ATOMIC writes not aligned to 16k: $(grep atomic_align "/sys/kernel/debug/tornblk/$name/hist" | tr '\n' ' ')"
	t_tornblk_cut "$name"
	umount "$mnt" || t_fail "umount $mnt after the cut failed"
	t_tornblk_on "$name"
	t_mount "/dev/$name" "$mnt"
	t_verify "$mnt/f" "/tmp/$name.j"
	TORN=$(t_verify_count torn)
	MIXED=$((TORN + $(t_verify_count corrupt)))
	[ "$(t_verify_count missing-durable)" -le "$MIXED" ] ||
		t_fail "$name: more fsynced halves lost than the race mixed"
	[ "$(t_verify_count lost)" = 0 ] || t_fail "$name: halves lost outright"
	umount "$mnt"
	t_tornblk_remove "$name"
	t_log "$name: $MIXED torn or corrupt 8k halves; first write() after writeback start p50 $WAIT_US us"
}

declare -A UNTORN
# A write() that did not wait for writeback took less than one page's delay.
run racy 16384 16384 0 0
[ "$MIXED" -gt 0 ] || t_fail "control: no torn or corrupt half on a device without atomic writes (the model shows no race)"
[ "$ATOMIC_WRITES" = 0 ] || t_fail "racy: $ATOMIC_WRITES REQ_ATOMIC writes from a file that does not qualify"
[ "$WAIT_US" -lt "$dma_us" ] || t_fail "racy: write() waited ${WAIT_US} us for writeback without stable writes"
# The device's own count of the race (what the crash loop records for
# PostgreSQL's writes): it saw pages change while it read them.
[ "$CHANGED" -gt 0 ] || t_fail "racy: tornblk counted no page changed during its capture, though halves were mixed"
# And the halves it copied from two versions (a page read before a change,
# the other after it): wherever a half came back torn, it saw one.
[ "$TORN" = 0 ] || [ "$PIECES" -gt 0 ] ||
	t_fail "racy: $TORN halves torn, but tornblk counted no 8k piece copied from two versions"
racy=$MIXED

run atomicoff 16384 4096 4096 16384 4096 nountorn
[ "$MIXED" -gt 0 ] || t_fail "atomicoff: no torn or corrupt half with untorn writes switched off (nountorn)"
[ "$ATOMIC_WRITES" = 0 ] || t_fail "atomicoff: $ATOMIC_WRITES REQ_ATOMIC writes with nountorn"
[ "$WAIT_US" -lt "$dma_us" ] || t_fail "atomicoff: write() waited ${WAIT_US} us for writeback with nountorn"

for name in outside onelba; do
	min=16384
	[ "$name" = outside ] || min=4096
	run "$name" 4096 16384 "$min" 16384
	[ "$ATOMIC_WRITES" = 0 ] || t_fail "$name: $ATOMIC_WRITES REQ_ATOMIC writes from 4k XFS blocks"
	[ "$WAIT_US" -lt "$dma_us" ] || t_fail "$name: write() waited ${WAIT_US} us for writeback without stable writes"
done

for name in atomic atomicwb lba16k; do
	case $name in
	atomic) run "$name" 16384 16384 4096 16384 ;;
	atomicwb) run "$name" 16384 4096 4096 16384 ;;
	lba16k) run "$name" 16384 16384 16384 16384 16384 ;;
	esac
	[ "$MIXED" = 0 ] || t_fail "$name: $MIXED torn or corrupt halves with the fix"
	[ "$CHANGED" = 0 ] || t_fail "$name: $CHANGED pages changed while the device captured them, with stable writes"
	[ "$PIECES" = 0 ] || t_fail "$name: $PIECES 8k pieces copied from two versions, with stable writes"
	# Each round starts writeback of its block twice, and with stable
	# writes the block is never still under writeback the second time.
	[ "$ATOMIC_WRITES" -ge $((2 * ROUNDS)) ] ||
		t_fail "$name: $ATOMIC_WRITES REQ_ATOMIC writes for $ROUNDS rounds (want 2 per round)"
	# A 16k block is 4 pages of capture: waiting for it takes far more
	# than one page's delay (not so a plain write(): see dma_us).
	[ "$WAIT_US" -ge $((2 * dma_us)) ] || t_fail "$name: write() did not wait for writeback (p50 ${WAIT_US} us)"
done
for name in racy atomicoff outside onelba atomic atomicwb lba16k; do
	want=0
	case $name in atomic|atomicwb|lba16k) want=16384 ;; esac
	[ "${UNTORN[$name]}" = "$want" ] ||
		t_fail "$name: untorn_buffered_bytes is ${UNTORN[$name]}, want $want"
done
t_log "untorn_buffered_bytes: $(for n in "${!UNTORN[@]}"; do printf '%s=%s ' "$n" "${UNTORN[$n]}"; done)"
t_pass "the race mixed $racy 8k halves on a device without atomic writes (and some with nountorn), none on 16k XFS over a 16k atomic unit (pawu 16k or 4k, 4k or 16k logical blocks)"
