#!/bin/bash
# Controls of the post-crash checks that no power cut in the committed
# evidence has to trigger: each is run on a healthy cluster (it must find
# nothing) and after damage made by hand (it must find it).  The ledger
# client (ledger.lua) runs for a while on baseline's storage, then:
#   healthy: no check finds anything; the client's log has commits and
#     rollbacks, pg_xact checked all of them, the updates check more than
#     10 counters;
#   a commit dropped (its row deleted): ledger counts it lost;
#   a rolled-back row put back by hand: pg_xact counts it;
#   a transaction lost whole (its ledger row deleted and its counter
#     decremented by hand, as an asynchronous commit lost at a cut): the
#     ledger counts it, and the updates check too (the counter is below the
#     value the client saw committed), not the counters check (the counts
#     still agree);
#   a lost write (the server stopped, the page of a counter the client
#     incremented put back as it was before the load: whole, its checksum
#     good): the counters check counts the counter, which no longer holds
#     the number of ledger rows naming it;
#   lost writes of the ledger's hash and GIN index pages (the hash index's
#     first bucket pages and the GIN root as before the load, one index at
#     a time): the index check finds counters whose rows the index scans
#     miss (or a scan that fails), which
#     pg_amcheck cannot (it checks btrees only); and on the healthy cluster
#     its lookups go through both indexes (EXPLAIN);
#   pg_xact zeroed (the server stopped, every status byte of its first
#     segment 0, as a page that never reached the disk): the rows stay
#     visible through their hint bits, and pg_xact counts every committed
#     one whose status is no longer committed.
# vm: mem=3072 timeout=900
# test: checks-bite after=pg-template
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh
# shellcheck source=workloads/checks.sh
. /lbs/src/workloads/checks.sh

t_require sysbench runuser dd
wl_config baseline
wl_template
wl_device
# The relations of the lost-write controls as they were before the load.
wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "the cluster did not start"; }
declare -A FILE
for rel in counters ledger_cid ledger_tags; do
	FILE[$rel]=$WL_DATA/$(psql_q -d sbtest -c "SELECT pg_relation_filepath('$rel')") ||
		t_fail "no path of relation $rel"
done
wl_pg_stop || t_fail "stopping the server failed"
for rel in "${!FILE[@]}"; do cp "${FILE[$rel]}" "/tmp/$rel.before" || t_fail "copying ${FILE[$rel]} failed"; done
wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "the cluster did not restart"; }
CYCLE=1 CYCLE_LEDGER=/tmp/ledger.bite
rm -f "$CYCLE_LEDGER"
wl_ledger_start "$CYCLE_LEDGER" 8
wait "$WL_LEDGER_PID" || t_fail "the ledger client failed: $(tail -n 5 /tmp/ledger.out)"
commits=$(grep -c '^c ' "$CYCLE_LEDGER" || true)
aborts=$(grep -c '^a ' "$CYCLE_LEDGER" || true)
if [ "$commits" -le 20 ] || [ "$aborts" -le 2 ]; then
	t_fail "the ledger client logged $commits commits and $aborts rollbacks: too few to test anything"
fi

# run: the ledger checks into R, logged.
run() {
	R=() CRASH_UNTESTED=()
	check_ledger_seen
	check_ledger
	check_pg_xact
	check_counters
	check_updates
	check_indexes
	t_log "$1: commits_seen ${R[commits_seen]} commits_lost ${R[commits_lost]} xact_checked ${R[xact_checked]}" \
		"xact_wrong ${R[xact_wrong]} counters_wrong ${R[counters_wrong]} updates_checked ${R[updates_checked]}" \
		"updates_lost ${R[updates_lost]} index_mismatch ${R[index_mismatch]}"
}

# lost_block REL FIRST [LAST]: the server stopped, blocks FIRST..LAST of
# relation REL put back as they were before the load (whole, their
# checksums good: writes the device lost), the server started again.
lost_block() {
	local n=$((${3:-$2} - $2 + 1))
	wl_pg_stop || t_fail "stopping the server failed"
	dd if="/tmp/$1.before" of="${FILE[$1]}" bs=8192 skip="$2" seek="$2" count="$n" conv=notrunc \
		status=none || t_fail "putting blocks $2-${3:-$2} of ${FILE[$1]} back failed"
	wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "the server did not start after blocks of $1 were lost"; }
}

run healthy
[ "${R[commits_lost]} ${R[xact_wrong]} ${R[counters_wrong]} ${R[updates_lost]} ${R[index_mismatch]}" = "0 0 0 0 0" ] ||
	t_fail "the checks found damage in a healthy cluster"
plan=$(psql_q -d sbtest -c "$CHK_INDEX_SETTINGS" -c "EXPLAIN (COSTS OFF) $(chk_index_lookup)") ||
	t_fail "EXPLAIN of the index lookups failed"
if ! grep -q 'ledger_cid' <<<"$plan" || ! grep -q 'ledger_tags' <<<"$plan"; then
	t_fail "the index check's lookups do not go through both indexes: $plan"
fi
t_log "index lookups: $(tr -s ' \n' ' ' <<<"$plan")"
[ "${R[updates_checked]}" -gt 10 ] || t_fail "the updates check looked at ${R[updates_checked]} counters only"
[ "${R[xact_checked]}" = $((commits + aborts)) ] ||
	t_fail "pg_xact checked ${R[xact_checked]} transactions, the client logged $((commits + aborts))"

read -r _ tid seq _ cid _ <<<"$(grep -m 1 '^c ' "$CYCLE_LEDGER")"
psql_q -d sbtest -c "DELETE FROM ledger WHERE tid = $tid AND seq = $seq" || t_fail "deleting a row failed"
run "commit $tid/$seq dropped"
[ "${R[commits_lost]}" = 1 ] || t_fail "the ledger check did not count the dropped commit"
psql_q -d sbtest -c "INSERT INTO ledger VALUES ($tid, $seq, $cid, ARRAY[$cid])" || t_fail "putting the row back failed"

read -r _ tid seq _ cid _ <<<"$(grep -m 1 '^a ' "$CYCLE_LEDGER")"
psql_q -d sbtest -c "INSERT INTO ledger VALUES ($tid, $seq, $cid, ARRAY[$cid])" || t_fail "inserting a rolled-back row failed"
run "rolled-back $tid/$seq put back"
[ "${R[xact_wrong]}" = 1 ] || t_fail "pg_xact did not count the rolled-back transaction's row"
psql_q -d sbtest -c "DELETE FROM ledger WHERE tid = $tid AND seq = $seq" || t_fail "removing the row failed"

# A transaction lost whole: the last committed one of a counter.
read -r _ tid seq _ cid val <<<"$(grep '^c ' "$CYCLE_LEDGER" | tail -n 1)"
psql_q -d sbtest -c "DELETE FROM ledger WHERE tid = $tid AND seq = $seq" \
	-c "UPDATE counters SET val = val - 1 WHERE id = $cid" || t_fail "undoing transaction $tid/$seq failed"
run "transaction $tid/$seq (counter $cid to $val) lost whole"
[ "${R[commits_lost]} ${R[updates_lost]} ${R[counters_wrong]}" = "1 1 0" ] ||
	t_fail "a transaction lost whole: the ledger and updates checks must count it, the counters check must not"
psql_q -d sbtest -c "INSERT INTO ledger VALUES ($tid, $seq, $cid, ARRAY[$cid])" \
	-c "UPDATE counters SET val = val + 1 WHERE id = $cid" || t_fail "redoing transaction $tid/$seq failed"

# A lost write: the block of a counter the client incremented (its updates
# stay in the block: HOT, the pages are half empty) as before the load.
read -r _ _ _ _ cid _ <<<"$(grep -m 1 '^c ' "$CYCLE_LEDGER")"
blk=$(psql_q -d sbtest -c "SELECT (ctid::text::point)[0]::int FROM counters WHERE id = $cid") ||
	t_fail "finding counter $cid's block failed"
lost_block counters "$blk"
run "block $blk of the counters (counter $cid) as before the load"
[ "${R[counters_wrong]}" -ge 1 ] || t_fail "a lost write of counter $cid's block: the counters check found nothing"
[ "${R[commits_lost]} ${R[xact_wrong]} ${R[index_mismatch]}" = "0 0 0" ] ||
	t_fail "a lost write of a counters block: the ledger and index checks should not see it (the ledger is intact)"

# Lost writes of index blocks, one index at a time (put back as it is now
# before the next): every block of the hash index but its metapage that
# was there before the load (its first buckets, empty then), and block 1
# of the GIN index (the root of its entry tree, an empty leaf then).
wl_pg_stop || t_fail "stopping the server failed"
for rel in ledger_cid ledger_tags; do cp "${FILE[$rel]}" "/tmp/$rel.now" || t_fail "copying ${FILE[$rel]} failed"; done
wl_pg_start || t_fail "the server did not restart"
for rel in ledger_cid ledger_tags; do
	last=1
	[ "$rel" = ledger_tags ] || last=$(($(stat -c %s "/tmp/$rel.before") / 8192 - 1))
	lost_block "$rel" 1 "$last"
	run "blocks 1-$last of $rel as before the load"
	[ "${R[index_mismatch]}" != 0 ] || t_fail "lost writes of blocks 1-$last of $rel: the index check found nothing"
	wl_pg_stop || t_fail "stopping the server failed"
	cp "/tmp/$rel.now" "${FILE[$rel]}" || t_fail "restoring ${FILE[$rel]} failed"
	wl_pg_start || t_fail "the server did not restart"
done

# Hint bits first, on every table (VACUUM sets them, the checkpoint writes
# them): the catalog rows of the checks' own temporary tables need them as
# much as the ledger's rows, or the server cannot read its catalog once
# their commits are gone; then the commit status gone from pg_xact behind
# the stopped server's back.
psql_q -d sbtest -c VACUUM -c CHECKPOINT >/dev/null || t_fail "setting hint bits failed"
wl_pg_stop || t_fail "stopping the server failed"
seg=$WL_DATA/pg_xact/0000
[ -f "$seg" ] || t_fail "no $seg"
dd if=/dev/zero of="$seg" bs=8192 count=1 conv=notrunc status=none || t_fail "zeroing $seg failed"
wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "the server did not start after pg_xact was zeroed"; }
run "pg_xact zeroed"
[ "${R[xact_wrong]}" -ge $((commits / 2)) ] ||
	t_fail "pg_xact zeroed: only ${R[xact_wrong]} of $commits committed transactions counted"
wl_pg_stop || true
wl_device_remove
t_pass "ledger, pg_xact, counters, updates and index checks find nothing on a healthy cluster and bite on a dropped commit, a rolled-back row, a transaction lost whole, lost writes of a table and of hash and GIN index pages, and a zeroed pg_xact ($commits commits, $aborts rollbacks)"
