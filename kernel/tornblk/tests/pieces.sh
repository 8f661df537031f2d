#!/bin/bash
# Torn-piece counts at a cut are what a reader finds on the device.  With
# pawu 4k and tear_unit 8k, 256 unflushed 8k pieces of new data over old:
# every piece comes back old, new or mixed, and the mixed ones are exactly
# cut_pieces_torn.  Rewriting identical data tears pieces "partially" but
# never visibly (cut_pieces_torn 0): the count separates tears that a
# checksum could see from harmless ones.
# test: tornblk.pieces
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
dev=$(t_tornblk_create pieces size_mb=16 pawu=4096 tear_unit=8192 seed=7)
n=256 piece=8192
head -c $((n * piece)) /dev/urandom >/tmp/old
head -c $((n * piece)) /dev/urandom >/tmp/new
# One direct write per 8k piece.  Pieces are counted per write, and the
# block layer may split a larger write at any page (seen with 1M writes on
# two CPUs: bios of 128k and 256k aligned to 4k): a piece split between two
# writes counts twice, and each write's part of it can be whole while the
# piece on the device is mixed.
put() { dd if="$1" of="$dev" bs=$piece oflag=direct status=none || t_fail "writing $1 failed"; }
put /tmp/old
sync "$dev" # flushes the device cache: old is durable

# Identical data again: partial pieces, none torn.
put /tmp/old
t_tornblk_cut pieces
t_tornblk_on pieces
[ "$(t_tornblk_stat pieces cut_pieces)" -eq $n ] ||
	t_fail "cut_pieces $(t_tornblk_stat pieces cut_pieces), want $n"
[ "$(t_tornblk_stat pieces cut_pieces_partial)" -gt 0 ] || t_fail "no partial piece at the first cut"
[ "$(t_tornblk_stat pieces cut_pieces_torn)" -eq 0 ] ||
	t_fail "rewriting identical data counted $(t_tornblk_stat pieces cut_pieces_torn) torn pieces"
cmp -s /tmp/old "$dev" -n $((n * piece)) || t_fail "identical rewrite changed the device"

# New data: count old, new and mixed pieces on the device.
put /tmp/new
t_tornblk_cut pieces
t_tornblk_on pieces
dd if="$dev" of=/tmp/got bs=1M count=$((n * piece >> 20)) iflag=direct status=none
mixed=0 olds=0 news=0
for i in $(seq 0 $((n - 1))); do
	off=$((i * piece))
	if cmp -s -i "$off:$off" -n $piece /tmp/got /tmp/old; then
		olds=$((olds + 1))
	elif cmp -s -i "$off:$off" -n $piece /tmp/got /tmp/new; then
		news=$((news + 1))
	else
		mixed=$((mixed + 1))
	fi
done
torn=$(t_tornblk_stat pieces cut_pieces_torn)
partial=$(t_tornblk_stat pieces cut_pieces_partial)
t_log "device: $olds old, $news new, $mixed mixed 8k pieces; tornblk: $partial partial, $torn torn"
[ "$mixed" -gt 0 ] || t_fail "no mixed piece: the coin did not tear anything"
[ "$mixed" -eq "$torn" ] || t_fail "device has $mixed mixed pieces, tornblk counted $torn torn"
[ "$partial" -eq "$torn" ] || t_fail "all-new data: partial ($partial) must equal torn ($torn)"
t_pass "$torn torn 8k pieces counted, $mixed found on the device"
