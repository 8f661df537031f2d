# shellcheck shell=bash
# PostgreSQL on tornblk + XFS inside the guest: the configurations of
# ../shared/design.md, one prepared cluster template, server start/stop and
# sysbench.  Sourced by bench.sh and crash.sh (after testlib.sh).
#
# Layout: the data directory on /dev/pg, the device under test (XFS block,
# pawu and atomic unit from the configuration); pg_wal on its own device
# /dev/pgwal (XFS 4k, pawu 4k), as on a server with a separate WAL volume.
# Commits then flush only the WAL device, and the data device's volatile
# cache holds what the checkpointer wrote until the checkpoint's fsyncs,
# which is the window where a torn data page can happen.  A power cut
# takes both devices.

# PostgreSQL's builds by page size (configs.tsv's pg_bs): Debian's, and
# the same source with 16k pages (guest-image/build-pg16k, which the pg16k
# target installs into the build directory, /lbs/build in the guest).
# wl_pg_build picks one for a configuration; Debian's is the default.
WL_PGBIN_8K=/usr/lib/postgresql/15/bin
WL_PGBIN_16K=/lbs/build/pg16k/bin
PGBIN=$WL_PGBIN_8K
WL_PG_BS=8192
PGSOCK=/tmp
WL_DEV=pg                 # tornblk device names: /dev/pg, /dev/pgwal
WL_WALDEV=pgwal
WL_MNT=/mnt/pg
WL_WALMNT=/mnt/pgwal
WL_DATA=$WL_MNT/data
# WL_PROFILE (set before sourcing): crash (crash.sh: a small data set that
# fits in shared_buffers, so that pages leave through the checkpoint, where
# the cut is placed) or bench (bench.sh: about three times shared_buffers,
# so that the bgwriter and backends evict too, with a pgbench database
# beside sysbench's).  Each profile has its own template.
WL_PROFILE=${WL_PROFILE:-crash}
WL_TABLES=${WL_TABLES:-4}
WL_THREADS=${WL_THREADS:-4}
case $WL_PROFILE in
crash) WL_TABLE_SIZE=${WL_TABLE_SIZE:-20000} WL_PGBENCH_SCALE=0 ;;
bench) WL_TABLE_SIZE=${WL_TABLE_SIZE:-50000} WL_PGBENCH_SCALE=${WL_PGBENCH_SCALE:-3} ;;
*) t_fail "WL_PROFILE must be crash or bench, got '$WL_PROFILE'" ;;
esac
WL_TEMPLATE_BASE=/tmp/pg-template-$WL_PROFILE # (wl_pg_build names the build's)
WL_TEMPLATE=$WL_TEMPLATE_BASE
WL_LOG=/tmp/pg.log
WL_TMP=${WL_TMP:-/tmp} # scratch files of the benchmark (hostbench: its own)
WL_LUA_DIR=/lbs/src/workloads
# The ledger client's counters (ledger.lua): rows of a table of their own,
# each transaction adds 1 to one of them; padded and half-filled pages, so
# that they span many pages as the user tables do.  The ledger's rows name
# their counter in cid and tags (ARRAY[cid]), indexed by a hash and a GIN
# index (no pending list: entries go to the tree), the kinds amcheck cannot
# check (checks.sh: indexes).
WL_COUNTERS=1000

# The configurations (wl_configs, wl_config) and the device model's
# default (WL_DMA_DELAY_US).
# (Beside this file: hostbench sources lib.sh on the host, where there is
# no /lbs/src.)
# shellcheck source=workloads/configs.sh
. "$(dirname "${BASH_SOURCE[0]}")/configs.sh"

as_pg() { runuser -u postgres -- "$@"; }

# wl_pg_build: the server build (PGBIN) and cluster template (WL_TEMPLATE)
# for WL_PG_BS-byte pages, as wl_config set it.
wl_pg_build() {
	case $WL_PG_BS in
	8192) PGBIN=$WL_PGBIN_8K WL_TEMPLATE=$WL_TEMPLATE_BASE ;;
	16384) PGBIN=$WL_PGBIN_16K WL_TEMPLATE=$WL_TEMPLATE_BASE-pg16k ;;
	*) t_fail "no PostgreSQL build with $WL_PG_BS-byte pages (8192 or 16384)" ;;
	esac
	[ -x "$PGBIN/postgres" ] ||
		t_fail "$PGBIN/postgres missing: PostgreSQL with $WL_PG_BS-byte pages is built by the" \
			"pg16k target (cmake --build BUILD --target pg16k: guest-image/build-pg16k)"
}
# wl_psql_opts: psql's options (WL_PSQL_OPTS) for this run's server, set
# at each call: PGSOCK may change after this file is sourced (hostbench
# sets its own).
wl_psql_opts() { WL_PSQL_OPTS=(-h "$PGSOCK" -U postgres -X -q -At -v ON_ERROR_STOP=1); }
psql_q() { wl_psql_opts; as_pg psql "${WL_PSQL_OPTS[@]}" "$@"; }

# A psql session kept open (one at a time): the crash cycle's queries go
# through one connection instead of a psql and a new backend each, which
# take about a second in the emulator, several under load.  It belongs to
# the server it connected to (postmaster.pid's pid and start time): after
# a restart wl_sess_open makes a new one.  wl_sess_open runs in the
# caller's shell (it keeps the descriptors); wl_sess_q may run in $(...).
# psql reads from a FIFO and writes to another; each query is followed by
# an \echo of WL_SESS_END, which ends its answer.
WL_SESS_DIR=/tmp/wl-sess WL_SESS_END=@@wl-sess-end@@ WL_SESS_PID='' WL_SESS_SERVER=''
wl_sess_server() { head -n 3 "$WL_DATA/postmaster.pid" 2>/dev/null | tr '\n' ' '; }

# wl_sess_open: a session with this server's sbtest database, unless the
# one open already is.
wl_sess_open() {
	local server
	server=$(wl_sess_server)
	[ -n "$server" ] || t_fail "no server running in $WL_DATA to open a psql session with"
	if [ -n "$WL_SESS_PID" ] && [ "$server" = "$WL_SESS_SERVER" ] && kill -0 "$WL_SESS_PID" 2>/dev/null; then
		return 0
	fi
	wl_sess_close
	rm -rf "$WL_SESS_DIR"
	mkdir -p "$WL_SESS_DIR" || t_fail "mkdir $WL_SESS_DIR failed"
	mkfifo "$WL_SESS_DIR/in" "$WL_SESS_DIR/out" || t_fail "making the session's FIFOs in $WL_SESS_DIR failed"
	wl_psql_opts
	# (line-buffered: each answer must reach the FIFO when it is printed;
	# stderr appended, so that wl_sess_q can empty it before each query)
	runuser -u postgres -- stdbuf -oL psql "${WL_PSQL_OPTS[@]}" -d sbtest \
		<"$WL_SESS_DIR/in" >"$WL_SESS_DIR/out" 2>>"$WL_SESS_DIR/err" &
	WL_SESS_PID=$!
	exec {WL_SESS_IN}>"$WL_SESS_DIR/in" {WL_SESS_OUT}<"$WL_SESS_DIR/out"
	WL_SESS_SERVER=$server
}

# wl_sess_send SQL: SQL sent, its answer left unread (a CHECKPOINT whose
# end the cycle does not wait for).  In a subshell: a write to a psql that
# is gone must not kill the caller with SIGPIPE.
wl_sess_send() {
	[ -n "$WL_SESS_PID" ] || t_fail "wl_sess_send: no session open"
	(printf '%s\n' "$1" >&"$WL_SESS_IN") 2>/dev/null
}

# wl_sess_q SQL [SECONDS]: SQL's output (psql -At); fails with psql's error
# on stderr when it reports one or gives no answer in SECONDS (default
# 300), and the session is then ended (a late answer must not be taken for
# the next query's; the next wl_sess_open makes a new one).  SQL ends with
# ';' (else psql would wait for the rest of the statement and answer the
# \echo first).
wl_sess_q() {
	local line sql=$1 rest
	[ -n "$WL_SESS_PID" ] || t_fail "wl_sess_q: no session open"
	rest=${sql%"${sql##*[![:space:]]}"}
	[[ $rest == *\; || ${rest##*$'\n'} == \\* ]] ||
		t_fail "wl_sess_q: the SQL does not end with ';' or a psql command: ${sql:0:80}"
	: >"$WL_SESS_DIR/err"
	if ! wl_sess_send "$sql"$'\n'"\\echo $WL_SESS_END"; then
		echo "the psql session is gone: $(tail -n 3 "$WL_SESS_DIR/err")" >&2
		kill "$WL_SESS_PID" 2>/dev/null
		return 1
	fi
	while IFS= read -r -t "${2:-300}" line <&"$WL_SESS_OUT"; do
		if [ "$line" = "$WL_SESS_END" ]; then return 0; fi
		printf '%s\n' "$line"
	done
	echo "the psql session gave no answer (${2:-300} s) or ended: $(tail -n 3 "$WL_SESS_DIR/err")" >&2
	kill "$WL_SESS_PID" 2>/dev/null
	return 1
}

# wl_sess_close: the session ended (psql reads the end of its input, or
# is stopped after 2 s).
wl_sess_close() {
	local tries=20
	[ -n "$WL_SESS_PID" ] || return 0
	exec {WL_SESS_IN}>&- {WL_SESS_OUT}<&-
	while kill -0 "$WL_SESS_PID" 2>/dev/null && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	kill "$WL_SESS_PID" 2>/dev/null || true
	wait "$WL_SESS_PID" 2>/dev/null || true
	WL_SESS_PID='' WL_SESS_SERVER=''
}

# The settings every configuration shares; only full_page_writes,
# wal_compression and synchronous_commit differ (from configs.tsv).
wl_pg_settings() {
	cat <<EOF
# --- lbs demo (workloads/lib.sh, profile $WL_PROFILE) ---
listen_addresses = ''              # unix socket only
unix_socket_directories = '$PGSOCK'
max_connections = 20
jit = off                          # the 16k build has no LLVM: both builds
                                   # run the same plans
EOF
	if [ "$WL_PROFILE" = crash ]; then
		cat <<EOF
shared_buffers = 64MB              # the whole data set fits: pages leave
                                   # through checkpoints, not evictions
checkpoint_timeout = 30s           # the minimum: several checkpoints per run,
                                   # so full-page images matter
checkpoint_completion_target = 0.9
max_wal_size = 1GB                 # checkpoints come from the timer only
min_wal_size = 80MB
fsync = on
autovacuum = on                    # as on a real server, and often enough
autovacuum_naptime = 1s            # for a cycle's minute of load: the
autovacuum_vacuum_threshold = 50   # visibility and free space maps are
autovacuum_vacuum_scale_factor = 0.01  # written before the cut (the
autovacuum_vacuum_insert_threshold = 100  # autovacuums column counts them)
autovacuum_analyze_threshold = 50
log_checkpoints = on
EOF
	else
		cat <<EOF
shared_buffers = 16MB              # about a third of each data set (4 x 50000
                                   # sysbench rows, pgbench scale 3; small for
                                   # the emulator): the bgwriter and backends
                                   # evict pages too
checkpoint_timeout = 1d            # fixed-work runs: bench.sh issues a
                                   # CHECKPOINT every K transactions (timed
                                   # runs set 30s, the minimum)
checkpoint_completion_target = 0.9
max_wal_size = 1GB                 # far above any run's WAL between two
                                   # checkpoints: none is requested by size
                                   # (bench.sh's walMB cells set their own)
min_wal_size = 32MB                # a small template to copy for each run
fsync = on
autovacuum = on                    # as on a real server
log_checkpoints = on
log_line_prefix = '%m [%p] '       # checkpoint times for the TPS plots
EOF
	fi
	cat <<EOF
wal_compression = $WL_WALCOMP
full_page_writes = $WL_FPW
synchronous_commit = $WL_SYNC
EOF
}

# The cluster templates' cache: run-vm shares a directory of the host's
# cache ($LBS_CACHE/pg-templates) at /lbs/templates in every guest, where
# wl_template leaves each template it builds as a tar named with its key
# and the next boot that needs the same template unpacks it (a minute or
# more of emulated CPU saved per boot: the tests of a run, each boot of the
# evidence and the benchmark).  Outside the guest (hostbench) there is no
# such mount and every run builds its own.
WL_TEMPLATE_CACHE=/lbs/templates

# wl_template_key: what the template is built from (this file, the ledger
# client, the data set's size, the locale, the server's and sysbench's
# programs and scripts, the image's package versions): a template saved
# under another key is not used.
wl_template_key() {
	{
		cat "$WL_LUA_DIR/lib.sh" "$WL_LUA_DIR/ledger.lua"
		echo "$WL_PROFILE $WL_TABLES $WL_TABLE_SIZE $WL_PGBENCH_SCALE $WL_COUNTERS $WL_PG_BS LANG=${LANG:-}"
		"$PGBIN/postgres" --version
		sysbench --version
		sha256sum "$PGBIN/postgres" "$PGBIN/initdb" "$(command -v sysbench)" /usr/share/sysbench/*.lua
		# (the image's packages: the C library's collations, tzdata,
		# PostgreSQL's catalog and extension scripts)
		dpkg-query -W -f '${Package} ${Version}\n'
	} | sha256sum | cut -c1-16
}

# wl_template_file: WL_TEMPLATE_FILE, the cache's file for this template
# and its key (empty outside the guest).  The key is computed once per
# template (hashing the programs reads them).
declare -A WL_TEMPLATE_KEYS=()
wl_template_file() {
	WL_TEMPLATE_FILE=''
	mountpoint -q "$WL_TEMPLATE_CACHE" || return 0
	if [ -z "${WL_TEMPLATE_KEYS[$WL_TEMPLATE]:-}" ]; then
		WL_TEMPLATE_KEYS[$WL_TEMPLATE]=$(wl_template_key) || t_fail "computing the template's key failed"
	fi
	WL_TEMPLATE_FILE=$WL_TEMPLATE_CACHE/$(basename "$WL_TEMPLATE")-${WL_TEMPLATE_KEYS[$WL_TEMPLATE]}.tar
}

# wl_template_save: the template into the cache, as a tar named with its
# key, written under a temporary name, synced and then renamed, so that a
# save cut short leaves nothing under the final name (.tmp.*: run-vm
# removes those a day old).  A save that fails costs only the next boot's
# time: it is said, not fatal.
wl_template_save() {
	local f tmp
	[ -f "$WL_TEMPLATE/.lbs-complete" ] || t_fail "no complete template to save"
	wl_template_file
	f=$WL_TEMPLATE_FILE
	[ -n "$f" ] || return 0
	# Every page as written (initdb -k): a template damaged while it was
	# built would otherwise damage every cycle that copies it.
	as_pg "$PGBIN/pg_checksums" --check -D "$WL_TEMPLATE" >"$WL_TMP/template-checksums.log" 2>&1 ||
		{ cat "$WL_TMP/template-checksums.log"; t_fail "the template fails pg_checksums --check: not saved"; }
	# (a random name: guests booted alike have alike PIDs)
	tmp=$f.tmp.$(cat /proc/sys/kernel/random/uuid)
	if tar -C "$(dirname "$WL_TEMPLATE")" -cf "$tmp" "$(basename "$WL_TEMPLATE")" &&
		sync "$tmp" && mv "$tmp" "$f"; then
		t_log "template saved to the cache: $(basename "$f")"
	else
		rm -f "$tmp"
		t_log "saving the template to $f failed: the next boot builds it again"
	fi
}

# wl_template_unpack: the template from the cache, if it holds one under
# this key; fails (quietly) otherwise.
wl_template_unpack() {
	local f
	wl_template_file
	f=$WL_TEMPLATE_FILE
	[ -n "$f" ] && [ -f "$f" ] || return 1
	rm -rf "$WL_TEMPLATE"
	if ! tar -C "$(dirname "$WL_TEMPLATE")" -xf "$f" || [ ! -f "$WL_TEMPLATE/.lbs-complete" ]; then
		t_log "unpacking $f failed: building a template"
		rm -rf "$WL_TEMPLATE"
		return 1
	fi
	touch "$f" 2>/dev/null || true # (run-vm keeps the most recently used)
	t_log "cluster template from the cache ($(basename "$f")): $(du -sm "$WL_TEMPLATE" | cut -f1) MB"
}

# wl_template: initdb -k and sysbench prepare once per boot, on tmpfs,
# unless the cache holds the template (wl_template_unpack); one built here
# goes into the cache.
wl_template() {
	# The marker is written last: a template cut short is built again.
	[ -f "$WL_TEMPLATE/.lbs-complete" ] && return 0
	if wl_template_unpack; then return 0; fi
	local pgb=""
	[ "$WL_PGBENCH_SCALE" -eq 0 ] || pgb=", pgbench scale $WL_PGBENCH_SCALE"
	t_log "preparing the cluster template: initdb -k ($WL_PG_BS-byte pages), $WL_TABLES tables x $WL_TABLE_SIZE rows$pgb"
	rm -rf "$WL_TEMPLATE"
	install -d -o postgres -g postgres "$WL_TEMPLATE"
	as_pg "$PGBIN/initdb" -k -A trust -U postgres -D "$WL_TEMPLATE" >"$WL_TMP/initdb.log" 2>&1 ||
		{ cat "$WL_TMP/initdb.log"; t_fail "initdb failed"; }
	WL_FPW=on WL_WALCOMP=off WL_SYNC=on wl_pg_settings >>"$WL_TEMPLATE/postgresql.conf"
	as_pg "$PGBIN/pg_ctl" -D "$WL_TEMPLATE" -l "$WL_LOG" -w -t 120 start >/dev/null ||
		{ tail -n 20 "$WL_LOG"; t_fail "template server did not start"; }
	# The server is the build asked for, and loads its modules (amcheck,
	# pg_visibility: compiled for its page size) from its own tree.
	local bs lib
	bs=$(psql_q -c "SHOW block_size") || t_fail "SHOW block_size failed"
	[ "$bs" = "$WL_PG_BS" ] || t_fail "$PGBIN/postgres has $bs-byte pages, not $WL_PG_BS"
	lib=$(psql_q -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'") || t_fail "pg_config view failed"
	[ "$lib" -ef "${PGBIN%/bin}/lib" ] || t_fail "$PGBIN/postgres loads its modules from $lib, not ${PGBIN%/bin}/lib"
	psql_q -c "CREATE DATABASE sbtest" || t_fail "CREATE DATABASE failed"
	psql_q -d sbtest -c "CREATE EXTENSION amcheck" -c "CREATE EXTENSION pg_buffercache" \
		-c "CREATE EXTENSION pg_visibility" \
		-c "CREATE TABLE ledger (tid int, seq int, cid int, tags int[], PRIMARY KEY (tid, seq))" \
		-c "CREATE INDEX ledger_cid ON ledger USING hash (cid)" \
		-c "CREATE INDEX ledger_tags ON ledger USING gin (tags) WITH (fastupdate = off)" \
		-c "CREATE TABLE counters (id int PRIMARY KEY, val bigint NOT NULL, pad text NOT NULL)
			WITH (fillfactor = 50)" \
		-c "INSERT INTO counters SELECT i, 0, repeat('x', 300) FROM generate_series(1, $WL_COUNTERS) i" ||
		t_fail "template schema failed"
	wl_sysbench oltp_write_only prepare >"$WL_TMP/prepare.log" 2>&1 ||
		{ tail -n 20 "$WL_TMP/prepare.log"; t_fail "sysbench prepare failed"; }
	psql_q -d sbtest -c "VACUUM ANALYZE" || t_fail "VACUUM failed"
	if [ "$WL_PGBENCH_SCALE" -gt 0 ]; then
		psql_q -c "CREATE DATABASE pgbench" || t_fail "CREATE DATABASE pgbench failed"
		as_pg "$PGBIN/pgbench" -h "$PGSOCK" -U postgres -i -q -s "$WL_PGBENCH_SCALE" pgbench \
			>"$WL_TMP/pgbench-init.log" 2>&1 ||
			{ tail -n 20 "$WL_TMP/pgbench-init.log"; t_fail "pgbench -i failed"; }
	fi
	as_pg "$PGBIN/pg_ctl" -D "$WL_TEMPLATE" -w -t 120 stop >/dev/null || t_fail "template stop failed"
	touch "$WL_TEMPLATE/.lbs-complete"
	t_log "template ready: $(du -sm "$WL_TEMPLATE" | cut -f1) MB"
	wl_template_save
}

# wl_device: fresh data and WAL devices for $WL_CONFIG with XFS and the
# template cluster on them, all durable.  The two are one cut group: they
# lose power at the same instant, whichever is cut.  Torn pieces are
# counted per PostgreSQL page on the data device (WL_PG_BS) and per 8k WAL
# page on the WAL device.  Both devices read write data
# WL_DMA_DELAY_US per page after submission (tornblk dma_delay_us; its
# default is configs.sh's), as a real device's DMA does; 0 copies it at
# submission.
wl_device() {
	local attrs=(size_mb=1024 cache_mb=512 logical_block_size=4096
		physical_block_size="$WL_PAWU" pawu="$WL_PAWU" seed="${WL_SEED:-1}"
		cut_group=1 tear_unit="$WL_PG_BS" dma_delay_us=0)
	[ "$WL_ATOMIC" -eq 0 ] || attrs+=(atomic_unit_min=4096 atomic_unit_max="$WL_ATOMIC")
	[ -d "$TB_CFG/$WL_DEV" ] && wl_device_remove
	t_tornblk_create "$WL_DEV" "${attrs[@]}" >/dev/null
	t_mkfs_xfs "/dev/$WL_DEV" "$WL_XFS_BS" -s size=4096
	if wl_wal_own; then
		t_tornblk_create "$WL_WALDEV" size_mb=1024 cache_mb=256 pawu=4096 seed="${WL_SEED:-1}" \
			cut_group=1 tear_unit=8192 dma_delay_us=0 >/dev/null
		t_mkfs_xfs "/dev/$WL_WALDEV" 4096 -s size=4096
	fi
	wl_mount_all || t_fail "mounting the fresh devices failed"
	cp -a "$WL_TEMPLATE" "$WL_DATA" || t_fail "copying the template failed"
	if wl_wal_own; then
		mv "$WL_DATA/pg_wal" "$WL_WALMNT/pg_wal" || t_fail "moving pg_wal to $WL_WALMNT failed"
		ln -s "$WL_WALMNT/pg_wal" "$WL_DATA/pg_wal" || t_fail "linking pg_wal failed"
	fi
	sed -i -e "s/^full_page_writes = .*/full_page_writes = $WL_FPW/" \
		-e "s/^wal_compression = .*/wal_compression = $WL_WALCOMP/" \
		-e "s/^synchronous_commit = .*/synchronous_commit = $WL_SYNC/" "$WL_DATA/postgresql.conf"
	grep -qx "synchronous_commit = $WL_SYNC" "$WL_DATA/postgresql.conf" ||
		t_fail "the template's postgresql.conf has no synchronous_commit line to set"
	sync
	# The device model's DMA capture from here on, before the server
	# starts: the new filesystems and the template's copy, written and
	# synced above, went to the devices at submission (dma_delay_us 0),
	# which saves seconds a cycle and changes nothing a cut can see.
	local d
	for d in "$WL_DEV" "$WL_WALDEV"; do
		[ -d "$TB_CFG/$d" ] || continue
		echo "$WL_DMA_DELAY_US" >"$TB_CFG/$d/dma_delay_us" ||
			t_fail "tornblk $d: setting dma_delay_us=$WL_DMA_DELAY_US was refused"
	done
}

# wl_squeeze MB: lock away all the memory the guest has available but about
# MB, in a process of its own (WL_SQUEEZE_PID), so that the page cache can
# hold only what stays resident anyway (binaries, dirty pages and pages
# under writeback: tens of MB were seen with 8 MB left) and about MB more:
# reads of a data set larger than that reach the device, as on a server
# whose data does not fit in memory.  That process is the OOM
# killer's first choice: should memory run out, it goes, and
# wl_squeeze_held says so before the run's row is written.  wl_unsqueeze
# ends it.
WL_SQUEEZE_PID='' WL_SQUEEZE_FAILS=''
# (No single quote inside: the program is one single-quoted word.)
_wl_squeeze_py='
import ctypes, mmap, os, signal, sys
mb, ready = int(sys.argv[1]), sys.argv[2]
def meminfo():
    d = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            d[k] = int(v.split()[0]) * 1024
    return d
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
with open("/proc/self/oom_score_adj", "w") as f:
    f.write("1000")
avail = meminfo()["MemAvailable"]
size = avail - mb * 2**20
if size < 16 * 2**20:
    sys.exit(f"only {avail >> 20} MB available: nothing to lock beyond the {mb} MB left to the page cache")
libc = ctypes.CDLL(None, use_errno=True)
libc.mlock.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
if libc.mlock(ctypes.addressof(ctypes.c_char.from_buffer(m)), size):
    sys.exit(f"mlock of {size >> 20} MB failed: {os.strerror(ctypes.get_errno())}")
i = meminfo()
files = (i["Active(file)"] + i["Inactive(file)"]) >> 20
left = i["MemAvailable"] >> 20
with open(ready + ".tmp", "w") as f:
    f.write(f"{size >> 20} MB locked; file pages in the page cache {files} MB, {left} MB available\n")
os.rename(ready + ".tmp", ready)
signal.sigwait({signal.SIGTERM})
os._exit(0)
'
wl_squeeze() {
	local mb=$1 ready=$WL_TMP/squeeze.ready i
	wl_unsqueeze
	rm -f "$ready"
	python3 -c "$_wl_squeeze_py" "$mb" "$ready" 2>"$WL_TMP/squeeze.err" &
	WL_SQUEEZE_PID=$!
	for i in $(seq 1200); do
		[ ! -s "$ready" ] || break
		if ! kill -0 "$WL_SQUEEZE_PID" 2>/dev/null; then
			WL_SQUEEZE_PID=''
			t_fail "limiting the page cache to $mb MB failed: $(cat "$WL_TMP/squeeze.err")"
		fi
		sleep 0.1
	done
	[ -s "$ready" ] || t_fail "locking memory to leave the page cache $mb MB took over $((i / 10)) s"
	WL_SQUEEZE_FAILS="$(tb_stat alloc_failures) $(tb_walstat alloc_failures)"
	t_log "page cache limited to about $mb MB: $(cat "$ready")"
}
# wl_squeeze_held: the lock held to the end of the run, and the devices
# (whose data lives in the memory left) never ran short of it.
wl_squeeze_held() {
	[ -n "$WL_SQUEEZE_PID" ] || return 0
	kill -0 "$WL_SQUEEZE_PID" 2>/dev/null ||
		t_fail "the memory lock (pid $WL_SQUEEZE_PID) ended during the run (out of memory? $(dmesg | grep -i 'killed process' | tail -n 1)): the page cache was not limited throughout"
	[ "$(tb_stat alloc_failures) $(tb_walstat alloc_failures)" = "$WL_SQUEEZE_FAILS" ] ||
		t_fail "tornblk failed allocations under the memory lock (alloc_failures $WL_SQUEEZE_FAILS, now $(tb_stat alloc_failures) $(tb_walstat alloc_failures)): the limit left the devices too little memory"
	t_log "page cache limit held: file pages now $(awk '/^(Active|Inactive)\(file\):/ { s += $2 } END { print int(s / 1024) }' /proc/meminfo) MB"
}
wl_unsqueeze() {
	[ -n "$WL_SQUEEZE_PID" ] || return 0
	kill "$WL_SQUEEZE_PID" 2>/dev/null || true
	wait "$WL_SQUEEZE_PID" 2>/dev/null || true
	WL_SQUEEZE_PID=''
}

# wl_wal_own: pg_wal is on a device of its own (configs.tsv's pg_wal: own),
# not in the data directory on the filesystem under test (data).
wl_wal_own() { [ "${WL_PGWAL:-own}" = own ]; }

# wl_mount_all: the data filesystem (with the configuration's xfs_mount
# options, WL_MOUNT) and the WAL filesystem, fresh or after a cut.
wl_mount_all() {
	local opts=${WL_MOUNT:--}
	mkdir -p "$WL_MNT" "$WL_WALMNT"
	[ "$opts" != - ] || opts=defaults
	mount -o "$opts" "/dev/$WL_DEV" "$WL_MNT" 2>/tmp/mount.err || return 1
	! wl_wal_own || mount "/dev/$WL_WALDEV" "$WL_WALMNT" 2>>/tmp/mount.err
}

# (mountpoint(1) stats the directory, which fails on a shut-down XFS.)
wl_umount_all() {
	local m
	for m in "$WL_MNT" "$WL_WALMNT"; do
		if awk -v m="$m" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; then
			umount "$m" || t_fail "umount $m failed"
		fi
	done
}

wl_device_remove() {
	wl_umount_all
	t_tornblk_remove "$WL_DEV"
	[ ! -d "$TB_CFG/$WL_WALDEV" ] || t_tornblk_remove "$WL_WALDEV"
}

# wl_power_cut_all: both devices, at one instant (one cut group).
wl_power_cut_all() {
	local p
	read -r p <"$TB_CFG/$WL_DEV/power"
	[ "$p" = 0 ] || t_tornblk_cut "$WL_DEV"
}
wl_power_on_all() { t_tornblk_on "$WL_DEV"; ! wl_wal_own || t_tornblk_on "$WL_WALDEV"; }

# (A session of the server before goes first: a server started while its
# FIFOs are open would keep them open, and psql would never see the end of
# its input.)
# The server's log is the server's to write: one a root step made first
# (benchcore empties it before each run; with the template from the cache
# no server of this boot has written it yet) is handed to postgres.
wl_pg_start() { # returns pg_ctl's status (recovery may fail after a crash)
	wl_sess_close
	touch "$WL_LOG" && chown postgres:postgres "$WL_LOG" || return 1
	as_pg "$PGBIN/pg_ctl" -D "$WL_DATA" -l "$WL_LOG" -w -t 300 start >/dev/null
}
wl_pg_stop() {
	wl_sess_close
	as_pg "$PGBIN/pg_ctl" -D "$WL_DATA" -w -t 120 -m fast stop >/dev/null
}

# wl_pg_kill: what is left of the server after a power cut, gone for good.
wl_pg_kill() {
	local tries=100
	pkill -9 -u postgres || true
	while pgrep -u postgres >/dev/null && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	! pgrep -u postgres >/dev/null || t_fail "postgres processes survive kill -9"
	wl_sess_close
}

# wl_evict_settings: the postgresql.conf lines of the eviction load (the
# crash loop's eviction cycles, race.sh): shared_buffers far below the data
# set, so that backends and the bgwriter write pages out all the time, and
# no timed checkpoint (its fsync would be held, and the cut would fall
# among its writes).
wl_evict_settings() { printf 'shared_buffers = 4MB\ncheckpoint_timeout = 1d\n'; }

# wl_writeback fast|default: the kernel's writeback of dirty pages every
# 0.2 s for pages dirty 1 s (the crash loop's eviction cycles, race.sh), or
# its settings as they were before the first call.
wl_writeback() {
	local wb
	[ -n "${WL_WB_DEFAULT:-}" ] ||
		WL_WB_DEFAULT="$(cat /proc/sys/vm/dirty_writeback_centisecs) $(cat /proc/sys/vm/dirty_expire_centisecs)"
	if [ "$1" = fast ]; then wb="20 100"; else wb=$WL_WB_DEFAULT; fi
	echo "${wb% *}" >/proc/sys/vm/dirty_writeback_centisecs ||
		t_fail "setting dirty_writeback_centisecs to ${wb% *} failed"
	echo "${wb#* }" >/proc/sys/vm/dirty_expire_centisecs ||
		t_fail "setting dirty_expire_centisecs to ${wb#* } failed"
}

# wl_sysbench TEST COMMAND [ARGS...]: sysbench against the sbtest database.
wl_sysbench() {
	local test=$1
	shift
	sysbench "$test" --db-driver=pgsql --pgsql-host="$PGSOCK" --pgsql-user=postgres \
		--pgsql-db=sbtest --tables="$WL_TABLES" --table-size="$WL_TABLE_SIZE" \
		--threads="$WL_THREADS" "$@"
}

# wl_ledger_start LOG SECONDS: one client inserting (tid, seq, cid) rows and
# adding 1 to counter cid, each in its own transaction; after COMMIT (or a
# deliberate ROLLBACK) returns it appends "c|a TID SEQ TXID CID VAL" to LOG
# (ledger.lua).
# sysbench's pgsql driver may segfault when the server dies under it; the
# subshell keeps bash's report of that in the output file.
# shellcheck disable=SC2034  # WL_LEDGER_PID is for the caller
wl_ledger_start() {
	(LEDGER_LOG=$1 LEDGER_COUNTERS=$WL_COUNTERS exec sysbench "$WL_LUA_DIR/ledger.lua" --db-driver=pgsql \
		--pgsql-host="$PGSOCK" --pgsql-user=postgres --pgsql-db=sbtest --threads=1 \
		--time="$2" run) >/tmp/ledger.out 2>&1 &
	WL_LEDGER_PID=$!
}

# wl_csv FILE COLUMNS [add]: start FILE with the header COLUMNS, or go on
# with it (resuming) if it has that header.  With "add", a FILE written by
# an earlier version whose columns are all among COLUMNS gains the new ones,
# empty in its rows (not recorded then); without it, or with a column
# COLUMNS lacks, it is refused: nothing is dropped or silently mixed.
wl_csv() {
	local have missing tmp
	if [ ! -s "$1" ]; then
		echo "$2" >"$1"
		return 0
	fi
	have=$(head -n 1 "$1")
	[ "$have" != "$2" ] || return 0
	[ "${3:-}" = add ] || t_fail "$1 has other columns than this version writes; move it away"
	case $have in *$'\r'*) t_fail "$1 has CRLF line ends; not a file this loop wrote" ;; esac
	missing=$(awk -v have="$have" -v want="$2" 'BEGIN {
		n = split(want, w, ","); for (i = 1; i <= n; i++) ok[w[i]] = 1
		m = split(have, h, ","); for (i = 1; i <= m; i++) if (!(h[i] in ok)) printf "%s ", h[i] }')
	[ -z "$missing" ] || t_fail "$1 has columns this version does not write ($missing); move it away"
	tmp=$1.new
	awk -F, -v want="$2" 'BEGIN { n = split(want, w, ","); OFS = "," }
		NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; print want; next }
		NF == 0 { next }
		{ line = ""
		  for (j = 1; j <= n; j++) line = line (j > 1 ? "," : "") (w[j] in at ? $(at[w[j]]) : "")
		  print line }' "$1" >"$tmp" || t_fail "adding columns to $1 failed"
	mv "$tmp" "$1" || t_fail "replacing $1 failed"
	t_log "$1: columns added, empty in its $(($(wc -l <"$1") - 1)) earlier rows"
}

# wl_pgbench ARGS...: pgbench on the pgbench database with the client
# threads, its per-transaction log in $WL_TMP/pgblog*; output in
# $WL_TMP/drive.out.
wl_pgbench() {
	rm -f "$WL_TMP"/pgblog*
	(cd "$WL_TMP" && as_pg "$PGBIN/pgbench" -h "$PGSOCK" -U postgres -n -c "$WL_THREADS" \
		-j "$WL_THREADS" -l --log-prefix=pgblog "$@" pgbench) >"$WL_TMP/drive.out" 2>&1 ||
		{ tail -n 20 "$WL_TMP/drive.out" >&2; t_fail "pgbench $* failed"; }
}

tb_stat() { t_tornblk_stat "$WL_DEV" "$1"; }
# tb_walstat KEY: the WAL device's counter, NA when pg_wal has none of its
# own (it is then on the data device, in tb_stat's counts).
tb_walstat() { if wl_wal_own; then t_tornblk_stat "$WL_WALDEV" "$1"; else echo NA; fi; }
