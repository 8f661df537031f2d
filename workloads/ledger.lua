-- A commit ledger for the crash loops (sysbench script).  Each event inserts
-- one (tid, seq) row in its own transaction; only after COMMIT has returned
-- does it append "tid seq" to $LEDGER_LOG, so the log lists exactly the
-- commits the client saw.  After a crash every logged row must be in the
-- ledger table.

function thread_init()
	drv = sysbench.sql.driver()
	con = drv:connect()
	log = assert(io.open(os.getenv("LEDGER_LOG"), "a"))
	seq = 0
end

function event()
	seq = seq + 1
	con:query("BEGIN")
	con:query(string.format("INSERT INTO ledger (tid, seq) VALUES (%d, %d)",
		sysbench.tid, seq))
	con:query("COMMIT")
	log:write(sysbench.tid, " ", seq, "\n")
	log:flush()
end

function thread_done()
	log:close()
	con:disconnect()
end
