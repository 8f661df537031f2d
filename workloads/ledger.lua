-- A commit ledger for the crash loops (sysbench script).  Each event inserts
-- one (tid, seq) row in its own transaction and notes the transaction's id;
-- only after COMMIT has returned does it append "c tid seq txid" to
-- $LEDGER_LOG, so the c lines list exactly the commits the client saw.
-- Every 8th transaction is rolled back on purpose and logged as
-- "a tid seq txid" once ROLLBACK has returned.  After a crash every c row
-- must be in the ledger table, pg_xact must call every c transaction whose
-- row is there committed, and no row of an a transaction may be there.

function thread_init()
	drv = sysbench.sql.driver()
	con = drv:connect()
	log = assert(io.open(os.getenv("LEDGER_LOG"), "a"))
	seq = 0
end

function event()
	seq = seq + 1
	con:query("BEGIN")
	local xid = con:query_row("SELECT txid_current()")
	con:query(string.format("INSERT INTO ledger (tid, seq) VALUES (%d, %d)",
		sysbench.tid, seq))
	local kind = "c"
	if seq % 8 == 0 then
		con:query("ROLLBACK")
		kind = "a"
	else
		con:query("COMMIT")
	end
	log:write(kind, " ", sysbench.tid, " ", seq, " ", xid, "\n")
	log:flush()
end

function thread_done()
	log:close()
	con:disconnect()
end
