-- A commit ledger for the crash loops (sysbench script).  Each event, in
-- one transaction, inserts a (tid, seq, cid, tags) row (tags: ARRAY[cid],
-- for the GIN index) and adds 1 to the counter cid (drawn from
-- 1..$LEDGER_COUNTERS), noting the transaction's id and the counter's new
-- value; only after COMMIT has returned does it append
-- "c tid seq txid cid val" to $LEDGER_LOG, so the c lines list exactly the
-- commits the client saw.  Every 8th transaction is rolled back on purpose
-- and logged as "a tid seq txid cid val" once ROLLBACK has returned.
-- After a crash every c row must be in the ledger table, pg_xact must call
-- every c transaction whose row is there committed, no row of an a
-- transaction may be there, each counter must hold the number of ledger
-- rows naming it and at least the last value the client saw committed,
-- and the ledger's indexes must find what a sequential scan finds
-- (checks.sh: ledger, pg_xact, counters, updates, indexes).

function thread_init()
	drv = sysbench.sql.driver()
	con = drv:connect()
	log = assert(io.open(os.getenv("LEDGER_LOG"), "a"))
	counters = tonumber(os.getenv("LEDGER_COUNTERS"))
	assert(counters and counters >= 1, "LEDGER_COUNTERS must be a number of counters")
	seq = 0
end

function event()
	seq = seq + 1
	local cid = sysbench.rand.uniform(1, counters)
	con:query("BEGIN")
	local xid = con:query_row("SELECT txid_current()")
	con:query(string.format(
		"INSERT INTO ledger (tid, seq, cid, tags) VALUES (%d, %d, %d, ARRAY[%d])",
		sysbench.tid, seq, cid, cid))
	local val = con:query_row(string.format(
		"UPDATE counters SET val = val + 1 WHERE id = %d RETURNING val", cid))
	assert(val, "counter " .. cid .. " is missing")
	local kind = "c"
	if seq % 8 == 0 then
		con:query("ROLLBACK")
		kind = "a"
	else
		con:query("COMMIT")
	end
	log:write(kind, " ", sysbench.tid, " ", seq, " ", xid, " ", cid, " ", val, "\n")
	log:flush()
end

function thread_done()
	log:close()
	con:disconnect()
end
