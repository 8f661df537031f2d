#!/bin/bash
# tornblk tells a filesystem's own writes from file data: XFS sends its log
# and metadata writes with REQ_META (this test tears log writes), and their torn pieces are counted in
# cut_pieces_torn_meta as well as cut_pieces_torn; a program's writes into a
# file are data and only in cut_pieces_torn.  The crash loop uses the
# difference to say whether a torn piece was PostgreSQL's (the hazard) or
# XFS's (log records carry CRCs, in-place metadata is redone from the log).
#
# On 4k XFS over a device that keeps only 4k units whole: a file's data is
# rewritten with 64k O_DIRECT writes, and 3000 files are created and their
# directory fsynced while flushes are held, so that the log writes of that
# checkpoint sit unflushed in the cache.  Then the power fails.
# test: tornblk.meta-torn
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require xfs_io
dev=$(t_tornblk_create meta size_mb=512 pawu=4096 tear_unit=8192 seed=5)
t_mkfs_xfs "$dev" 4096
mnt=/mnt/meta
t_mount "$dev" "$mnt"
dd if=/dev/urandom of="$mnt/data" bs=1M count=4 status=none || t_fail "writing $mnt/data failed"
sync -f "$mnt" # the old data and its metadata are durable
m0=$(t_tornblk_stat meta meta_writes)
[ "$m0" -gt 0 ] || t_fail "XFS wrote nothing with REQ_META (meta_writes 0)"

echo 1 >"$TB_CFG/meta/hold_flush"
dd if=/dev/urandom of="$mnt/data" bs=64k count=64 oflag=direct conv=notrunc status=none ||
	t_fail "rewriting $mnt/data failed"
mkdir "$mnt/d"
(cd "$mnt/d" && seq 1 3000 | xargs touch) || t_fail "creating 3000 files failed"
xfs_io -c fsync "$mnt/d" 2>/dev/null &
# Until the log force's flush is held and no write has come for 1 s (the
# log writes before it can take a while under TCG): at most 30 s.
prev=-1 stable=0 tries=300
while [ $tries -gt 0 ] && [ $stable -lt 10 ]; do
	sleep 0.1
	tries=$((tries - 1))
	now=$(t_tornblk_stat meta writes)
	if [ "$(t_tornblk_stat meta held_now)" -ge 1 ] && [ "$now" = "$prev" ]; then
		stable=$((stable + 1))
	else
		stable=0
	fi
	prev=$now
done
[ "$(t_tornblk_stat meta held_now)" -ge 1 ] || t_fail "the fsync's log force did not reach the device"
m1=$(t_tornblk_stat meta meta_writes)
t_tornblk_cut meta
wait || true
torn=$(t_tornblk_stat meta cut_pieces_torn)
meta=$(t_tornblk_stat meta cut_pieces_torn_meta)
t_log "$((m1 - m0)) metadata writes while flushes were held; cut: $(t_tornblk_stat meta cut_writes) cached writes, $torn torn 8k pieces, $meta of them in metadata writes"
[ "$meta" -gt 0 ] || t_fail "no torn piece counted in XFS's log or metadata writes"
[ "$meta" -lt "$torn" ] || t_fail "every torn piece counted as metadata: the file data's torn pieces are missing"
umount "$mnt" || t_fail "umount after the cut failed"
t_tornblk_on meta

# A direct write to the bare device is data too.
dd if=/dev/urandom of="$dev" bs=64k count=16 oflag=direct conv=notrunc status=none ||
	t_fail "writing $dev failed"
t_tornblk_cut meta
[ "$(t_tornblk_stat meta cut_pieces_torn)" -gt 0 ] || t_fail "64k writes over 4k units: nothing torn"
[ "$(t_tornblk_stat meta cut_pieces_torn_meta)" -eq 0 ] ||
	t_fail "direct writes to the device counted as metadata"
t_tornblk_remove meta
t_pass "$meta of $torn torn pieces in XFS's log and metadata writes, the rest in file data"
