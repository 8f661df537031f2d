# shellcheck shell=bash
# The checks a crash cycle runs after power on, and the cycle's record
# (sourced by crash.sh in the guest, after lib.sh; the unit test sources it
# on the host for crash_columns only: it defines functions and reads
# checks.tsv, nothing else).
#
# A cycle is a record: the associative array R, one entry per crash.csv
# column.  checks.tsv lists the checks: each check_NAME below sets its own
# columns in R, may say what made the cycle untested (crash_untested) and
# calls crash_block when the phases that need it cannot run (a failed
# mount, a server that does not start).  Checks are called plainly, never
# as a condition, so that errexit holds inside them.  crash_verdict reads the columns
# checks.tsv marks; crash_row writes R by column name, so the header and
# the rows cannot drift apart.

declare -gA R=()
WL_CHECKS_TSV=${WL_CHECKS_TSV:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/checks.tsv}

# What the cycle did and had in flight at its cut (crash.sh sets these), and
# what closes the row; the checks' columns go between them.
CRASH_HEAD_COLUMNS=(kernel commit config xfs_bs pawu atomic_unit xfs_mount full_page_writes synchronous_commit
	pg_wal autovacuum autovacuums dma_delay_us cycle seed cut_mode wal_cut unflushed_writes cut_pos cut_fraction
	data_cached_writes data_rewound_writes wal_cached_writes torn_writes units_kept units_lost pages_in_flight
	pages_partial pages_torn meta_pages_torn wal_pages_torn dma_pages_changed dma_pieces_mixed race_piece)
CRASH_TAIL_COLUMNS=(seconds verdict)

# checks.tsv, read once: CHK_NAME, CHK_PHASE, CHK_FINDS, CHK_COLS (the
# columns field as written, COLUMN=VALUE marks kept).
CHK_NAME=() CHK_PHASE=() CHK_FINDS=() CHK_COLS=()
_chk_read() {
	local name phase finds cols what n=0
	while IFS=$'\t' read -r name phase finds cols what; do
		n=$((n + 1))
		case $name in '' | '#'*) continue ;; esac
		case $phase in powered | mount | start | online | stopped | unmounted) ;;
		*) _wl_cfg_fail "$WL_CHECKS_TSV:$n: unknown phase '$phase'" ;;
		esac
		case $finds in corrupt | lost) ;; *) _wl_cfg_fail "$WL_CHECKS_TSV:$n: finds '$finds', not corrupt or lost" ;; esac
		if [ -z "$cols" ] || [ -z "$what" ]; then
			_wl_cfg_fail "$WL_CHECKS_TSV:$n: fewer than 5 fields"
		fi
		CHK_NAME+=("$name") CHK_PHASE+=("$phase") CHK_FINDS+=("$finds") CHK_COLS+=("$cols")
	done <"$WL_CHECKS_TSV"
	[ ${#CHK_NAME[@]} -gt 0 ] || _wl_cfg_fail "$WL_CHECKS_TSV lists no check"
}
_chk_read

# crash_columns: crash.csv's header.
crash_columns() {
	local i c cols=("${CRASH_HEAD_COLUMNS[@]}")
	for i in "${!CHK_NAME[@]}"; do
		for c in ${CHK_COLS[$i]}; do cols+=("${c%%=*}"); done
	done
	cols+=("${CRASH_TAIL_COLUMNS[@]}")
	(IFS=,; echo "${cols[*]}")
}

# crash_row: R as one CSV line in crash_columns' order (NA for a column no
# one set: that part of the cycle did not run).
crash_row() {
	local col v line='' sep=''
	local -a cols
	IFS=, read -r -a cols <<<"$(crash_columns)"
	for col in "${cols[@]}"; do
		v=${R[$col]-NA}
		case $v in *,* | *$'\n'* | '') t_fail "crash.csv column $col: '$v' is empty or has a comma or newline" ;; esac
		line+=$sep$v sep=,
	done
	echo "$line"
}

# crash_untested REASON: the cycle tested nothing of what it was for.
crash_untested() { CRASH_UNTESTED+=("$1"); }

# crash_block: the phases that need this check's cannot run.
CRASH_BLOCKED=0
crash_block() { CRASH_BLOCKED=1; }

# crash_phase PHASE: run the checks of PHASE in table order; CRASH_BLOCKED
# is 1 afterwards when one of them blocked the phases after it.  (Call it
# plainly and test CRASH_BLOCKED: as a condition, errexit would be off in
# every check.)  Each check's time goes to lap NAME when the caller has
# one (crash.sh).
crash_phase() {
	local i
	# shellcheck disable=SC2034  # read by crash.sh
	CRASH_BLOCKED=0
	for i in "${!CHK_NAME[@]}"; do
		if [ "${CHK_PHASE[$i]}" = "$1" ]; then
			"check_${CHK_NAME[$i]}"
			! declare -F lap >/dev/null || lap "${CHK_NAME[$i]}"
		fi
	done
}

# crash_verdict: R[verdict] from the marked columns: corrupt when a check
# that finds corruption saw a value but its clean one, else untested when
# something made the cycle test nothing, else clean; "+lost" when a check
# that finds lost commits saw one.  CRASH_DAMAGE names what was found.
crash_verdict() {
	local i c v corrupt=0 lost=0
	CRASH_DAMAGE=()
	for i in "${!CHK_NAME[@]}"; do
		for c in ${CHK_COLS[$i]}; do
			[[ $c == *=* ]] || continue
			v=${R[${c%%=*}]-NA}
			if [ "$v" = NA ] || [ "$v" = "${c#*=}" ]; then continue; fi
			CRASH_DAMAGE+=("${c%%=*} $v")
			if [ "${CHK_FINDS[$i]}" = lost ]; then lost=1; else corrupt=1; fi
		done
	done
	if [ $corrupt -eq 1 ]; then
		R[verdict]=corrupt
	elif [ ${#CRASH_UNTESTED[@]} -gt 0 ]; then
		R[verdict]=untested
	else
		R[verdict]=clean
	fi
	[ $lost -eq 0 ] || R[verdict]+=+lost
}

# crash_findings: the checks' columns as "name value" pairs, for the log.
crash_findings() {
	local i c line='' sep=''
	for i in "${!CHK_NAME[@]}"; do
		for c in ${CHK_COLS[$i]}; do
			line+="$sep${c%%=*} ${R[${c%%=*}]-NA}" sep=', '
		done
	done
	echo "$line"
}

# --- the checks (checks.tsv); context: CYCLE (its number), CYCLE_LOG (the
# kept server log), CYCLE_LEDGER (the ledger client's log) ---

# The ledger client's log: "c TID SEQ TXID CID VAL" per commit it saw
# acknowledged, "a TID SEQ TXID CID VAL" per transaction it rolled back
# (ledger.lua: each adds 1 to counter CID, whose new value was VAL).
check_ledger_seen() {
	R[commits_seen]=0
	[ ! -s "$CYCLE_LEDGER" ] || R[commits_seen]=$(grep -c '^c ' "$CYCLE_LEDGER" || true)
	[ "${R[commits_seen]}" -gt 0 ] || crash_untested "no acknowledged commits"
}

check_mount() {
	if wl_mount_all; then
		R[mount]=ok
		return 0
	fi
	R[mount]=failed
	t_log "cycle $CYCLE: mount failed: $(tail -n 2 /tmp/mount.err) $(dmesg | tail -n 2)"
	crash_block
}

# Pages that failed verification during recovery, read from the server log
# before anything is rewritten (visibility map and free space map pages are
# zeroed and rewritten with fresh checksums, so only the log remembers
# them).  Free space map pages are not WAL-logged: PostgreSQL zeroes a torn
# one and rebuilds it, by design, even with full_page_writes on; they count
# as corruption only where pages must never tear (full_page_writes off);
# every other page error always does.
check_recovery() {
	local pvf inv
	R[recovery]=ok
	wl_pg_start || R[recovery]=failed
	R[fsm_pages_zeroed]=$(grep -c 'invalid page in block .*_fsm; zeroing out page' "$WL_LOG" || true)
	R[log_page_errors]=$(grep 'invalid page in block' "$WL_LOG" | grep -vc '_fsm; zeroing out page' || true)
	pvf=$(grep -c 'page verification failed' "$WL_LOG" || true)
	inv=$(grep -c 'invalid page in block' "$WL_LOG" || true)
	[ "$pvf" -le "$inv" ] || R[log_page_errors]=$((R[log_page_errors] + pvf - inv))
	[ "$WL_FPW" = on ] || R[log_page_errors]=$((R[log_page_errors] + R[fsm_pages_zeroed]))
	R[redo]=no
	! grep -q 'redo starts at' "$WL_LOG" || R[redo]=yes
	if [ "${R[recovery]}" = failed ]; then
		t_log "cycle $CYCLE: recovery failed: $(grep -E 'PANIC|FATAL|invalid page|checksum' "$WL_LOG" | tail -n 2 | tr '\n' ' ')"
		crash_block
		return 0
	fi
	[ "${R[redo]}" = yes ] || crash_untested "no WAL redo"
}

# Each corruption report of pg_amcheck starts with a line naming its
# relation on stdout (amcheck_errors counts them); notices and warnings go
# to stderr.  Both are kept beside the cycle's server log.
check_amcheck() {
	R[amcheck_rc]=0
	as_pg "$PGBIN/pg_amcheck" -h "$PGSOCK" -U postgres --all --install-missing --jobs 2 \
		--heapallindexed --parent-check --rootdescend >/tmp/amcheck.out 2>/tmp/amcheck.err ||
		R[amcheck_rc]=$?
	R[amcheck_errors]=$(grep -cE '^(heap table|btree index) "' /tmp/amcheck.out || true)
	cat /tmp/amcheck.out /tmp/amcheck.err >"${CYCLE_LOG%.log}.amcheck"
}

# Rows pg_visibility finds wrongly marked all-visible or all-frozen in the
# user tables.
check_visibility() {
	wl_sess_open
	R[visibility_errors]=$(wl_sess_q "SELECT (SELECT count(*) FROM pg_check_visible(c.oid)) +
		(SELECT count(*) FROM pg_check_frozen(c.oid))
		FROM pg_class c WHERE c.relkind IN ('r', 'm') AND c.relnamespace = 'public'::regnamespace;" |
		awk '{ s += $1 } END { print s + 0 }') || t_fail "cycle $CYCLE: pg_visibility query failed"
}

check_ledger() {
	# (written by psql, as postgres: not through the session's FIFO, which
	# bash reads a byte at a time)
	rm -f /tmp/ledger.db
	wl_sess_open
	wl_sess_q "\\copy (SELECT tid || ' ' || seq FROM ledger) TO '/tmp/ledger.db'" >/dev/null ||
		t_fail "cycle $CYCLE: reading the ledger failed"
	[ -f /tmp/ledger.db ] || t_fail "cycle $CYCLE: psql wrote no /tmp/ledger.db"
	touch "$CYCLE_LEDGER"
	awk '$1 == "c" { print $2, $3 }' "$CYCLE_LEDGER" | sort >/tmp/ledger.seen
	sort /tmp/ledger.db >/tmp/ledger.have
	R[commits_lost]=$(comm -23 /tmp/ledger.seen /tmp/ledger.have | wc -l)
}

# pg_xact against the ledger: a transaction whose row survived must be
# committed there (a row visible through hint bits while pg_xact lost the
# commit is a torn or lost pg_xact page), and the row of one the client
# rolled back must be gone.  A rollback's own status says nothing: when
# none of its WAL reached the disk, the recovered server hands its txid out
# again (to the checks' own transactions, which commit).  (txid_status
# fails on a txid the server has not reached, a lost asynchronous commit;
# the query may ask it of rows that are gone, so that is caught.)
check_pg_xact() {
	local sql
	awk 'NF >= 4 && ($1 == "c" || $1 == "a") { print $1 "\t" $2 "\t" $3 "\t" $4 }' \
		"$CYCLE_LEDGER" >/tmp/ledger.xact
	R[xact_checked]=$(wc -l </tmp/ledger.xact)
	sql="CREATE TEMP TABLE IF NOT EXISTS seen (kind text, tid int, seq int, xid bigint);
TRUNCATE seen;
\\copy seen FROM '/tmp/ledger.xact'
CREATE OR REPLACE FUNCTION pg_temp.status(x bigint) RETURNS text LANGUAGE plpgsql AS
  \$\$ BEGIN RETURN coalesce(txid_status(x), 'unknown');
  EXCEPTION WHEN invalid_parameter_value THEN RETURN 'future'; END \$\$;
SELECT count(*) FROM seen s
  LEFT JOIN ledger l ON l.tid = s.tid AND l.seq = s.seq
  WHERE l.tid IS NOT NULL AND (s.kind = 'a' OR pg_temp.status(s.xid) <> 'committed');"
	chmod 644 /tmp/ledger.xact
	wl_sess_open
	R[xact_wrong]=$(wl_sess_q "$sql" | tail -n 1) || t_fail "cycle $CYCLE: the pg_xact query failed"
}

# The ledger's counters (ledger.lua: each transaction inserts its ledger
# row and adds 1 to one counter).  counters_wrong: the counters that do not
# hold the number of surviving ledger rows naming them, plus ledger rows
# naming no counter (the row and the increment are one transaction, so only
# a lost or torn page of either table breaks this, though every page is
# whole and its checksum good).  updates_lost: the counters below the last
# value the client saw committed (a transaction lost whole, its row with
# it, keeps the counts equal; this catches it); updates_checked: the
# counters the client's committed transactions named.
check_counters() {
	wl_sess_open
	R[counters_wrong]=$(wl_sess_q "SELECT
	  (SELECT count(*) FROM counters c
	     LEFT JOIN (SELECT cid, count(*) AS n FROM ledger GROUP BY cid) l ON l.cid = c.id
	     WHERE c.val <> coalesce(l.n, 0))
	+ (SELECT count(*) FROM ledger l WHERE NOT EXISTS (SELECT FROM counters c WHERE c.id = l.cid));") ||
		t_fail "cycle $CYCLE: the counters query failed"
}

check_updates() {
	local sql
	awk '$1 == "c" && NF == 6 { print $5 "\t" $6 }' "$CYCLE_LEDGER" >/tmp/ledger.updates
	R[updates_checked]=$(cut -f1 /tmp/ledger.updates | sort -u | wc -l)
	chmod 644 /tmp/ledger.updates
	sql="CREATE TEMP TABLE IF NOT EXISTS acked (cid int, val bigint);
TRUNCATE acked;
\\copy acked FROM '/tmp/ledger.updates'
SELECT count(*) FROM (SELECT cid, max(val) AS val FROM acked GROUP BY cid) a
  LEFT JOIN counters c ON c.id = a.cid
  WHERE c.id IS NULL OR c.val < a.val;"
	wl_sess_open
	R[updates_lost]=$(wl_sess_q "$sql" | tail -n 1) ||
		t_fail "cycle $CYCLE: the updates query failed"
}

# The ledger's hash and GIN indexes (lib.sh), which amcheck cannot check,
# against a sequential scan: for every counter, the ledger rows naming it
# found through each index (a lookup by key per counter, a correlated
# subquery whose scan, with sequential scans off, can only be that index;
# checks-bite.sh shows the plans) must be those the sequential scan counts.
# index_mismatch: the counters whose counts differ, or "error" when a scan
# failed or ran out of time.  A lost or torn index page can make a scan
# loop where no interrupt is checked (a hash bucket chain, a GIN right
# link): statement_timeout cannot end it, so the client gives up after
# 150 s, the server is killed and the cycle's later phases do not run (this
# is the last check of its phase).
CHK_INDEX_SETTINGS="SET enable_seqscan = off;"
chk_index_lookup() {
	echo "SELECT c.id, (SELECT count(*) FROM ledger l WHERE l.cid = c.id) AS hash_n,
  (SELECT count(*) FROM ledger l WHERE l.tags @> ARRAY[c.id]) AS gin_n
  FROM generate_series(1, $WL_COUNTERS) c(id)"
}
check_indexes() {
	local out sql rc=0
	sql="SET statement_timeout = '120s';
$CHK_INDEX_SETTINGS
CREATE TEMP TABLE via_index AS $(chk_index_lookup);
RESET enable_seqscan; SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM via_index v
  LEFT JOIN (SELECT cid, count(*) AS n FROM ledger GROUP BY cid) s ON s.cid = v.id
  WHERE v.hash_n <> coalesce(s.n, 0) OR v.gin_n <> coalesce(s.n, 0);"
	wl_psql_opts
	out=$(timeout -k 10 150 runuser -u postgres -- psql "${WL_PSQL_OPTS[@]}" -d sbtest <<<"$sql" \
		2>/tmp/indexes.err) || rc=$?
	if [ "$rc" -ne 0 ]; then
		R[index_mismatch]=error
		t_log "cycle $CYCLE: the index scans failed (exit $rc): $(head -c 300 /tmp/indexes.err | tr '\n' ' ')"
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			t_log "cycle $CYCLE: an index scan did not end: the server is killed"
			wl_pg_kill
			crash_block
		fi
		return 0
	fi
	R[index_mismatch]=$(tail -n 1 <<<"$out")
	[[ ${R[index_mismatch]} =~ ^[0-9]+$ ]] ||
		t_fail "cycle $CYCLE: the index check printed '${R[index_mismatch]}', not a count"
}

# pg_checksums exits 1 when it finds bad pages: the count is the answer;
# its output (the file and block of each bad page) is kept beside the
# cycle's log (cycle-N.checksums).
check_checksums() {
	as_pg "$PGBIN/pg_checksums" --check -D "$WL_DATA" >/tmp/checksums.out 2>&1 || true
	cp /tmp/checksums.out "${CYCLE_LOG%.log}.checksums" || t_fail "cycle $CYCLE: keeping pg_checksums' output failed"
	R[checksum_bad]=$(awk -F: '/Bad checksums/ { gsub(/ /, "", $2); print $2 }' /tmp/checksums.out)
	[ -n "${R[checksum_bad]}" ] || t_fail "cycle $CYCLE: pg_checksums gave no count"
}

check_xfs_repair() {
	R[xfs_repair]=clean
	xfs_repair -n "/dev/$WL_DEV" >/tmp/repair.out 2>&1 || R[xfs_repair]=data-damaged
	! wl_wal_own || xfs_repair -n "/dev/$WL_WALDEV" >>/tmp/repair.out 2>&1 ||
		R[xfs_repair]=${R[xfs_repair]/clean/}wal-damaged
}

# Every check checks.tsv names has its function (found now, not after the
# first power cut).
for _chk in "${CHK_NAME[@]}"; do
	declare -F "check_$_chk" >/dev/null || _wl_cfg_fail "$WL_CHECKS_TSV names check '$_chk' but checks.sh has no check_$_chk"
done
unset _chk
