#!/bin/bash
# Controls of the post-crash checks that no power cut in the committed
# evidence has to trigger: each is run on a healthy cluster (it must find
# nothing) and after damage made by hand (it must find it).  The ledger
# client (ledger.lua) runs for a while on baseline's storage, then:
#   healthy: ledger and pg_xact find nothing; the client's log has commits
#     and rollbacks, and pg_xact checked all of them;
#   a commit dropped (its row deleted): ledger counts it lost;
#   a rolled-back row put back by hand: pg_xact counts it;
#   pg_xact zeroed (the server stopped, every status byte of its first
#     segment 0, as a page that never reached the disk): the rows stay
#     visible through their hint bits, and pg_xact counts every committed
#     one whose status is no longer committed.
# vm: mem=3072 timeout=900
# test: checks-bite
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
wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "the cluster did not start"; }
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
	t_log "$1: commits_seen ${R[commits_seen]} commits_lost ${R[commits_lost]} xact_checked ${R[xact_checked]} xact_wrong ${R[xact_wrong]}"
}

run healthy
[ "${R[commits_lost]} ${R[xact_wrong]}" = "0 0" ] || t_fail "the checks found damage in a healthy cluster"
[ "${R[xact_checked]}" = $((commits + aborts)) ] ||
	t_fail "pg_xact checked ${R[xact_checked]} transactions, the client logged $((commits + aborts))"

read -r _ tid seq _ <<<"$(grep -m 1 '^c ' "$CYCLE_LEDGER")"
psql_q -d sbtest -c "DELETE FROM ledger WHERE tid = $tid AND seq = $seq" || t_fail "deleting a row failed"
run "commit $tid/$seq dropped"
[ "${R[commits_lost]}" = 1 ] || t_fail "the ledger check did not count the dropped commit"
psql_q -d sbtest -c "INSERT INTO ledger VALUES ($tid, $seq)" || t_fail "putting the row back failed"

read -r _ tid seq _ <<<"$(grep -m 1 '^a ' "$CYCLE_LEDGER")"
psql_q -d sbtest -c "INSERT INTO ledger VALUES ($tid, $seq)" || t_fail "inserting a rolled-back row failed"
run "rolled-back $tid/$seq put back"
[ "${R[xact_wrong]}" = 1 ] || t_fail "pg_xact did not count the rolled-back transaction's row"
psql_q -d sbtest -c "DELETE FROM ledger WHERE tid = $tid AND seq = $seq" || t_fail "removing the row failed"

# Hint bits first (a scan sets them, the checkpoint writes them), then the
# commit status gone from pg_xact behind the stopped server's back.
psql_q -d sbtest -c "SELECT count(*) FROM ledger" -c CHECKPOINT >/dev/null || t_fail "setting hint bits failed"
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
t_pass "ledger and pg_xact checks find nothing on a healthy cluster and bite on a dropped commit, a rolled-back row and a zeroed pg_xact ($commits commits, $aborts rollbacks)"
