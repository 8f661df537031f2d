#!/bin/bash
# The page-cache writeback race's chances under PostgreSQL's own writes
# (runs in the guest; #30 item 1).  For each variant of race.tsv (a load
# and server settings), REPS loads of SECONDS each on fresh storage of one
# configuration (default lbs-atomic-off, the probe: stable pages off, the
# device capturing each page DMA_DELAY_US after submission), interleaved:
# every variant's first load, then every variant's second, each round in
# a rotated order.  No power cut: tornblk counts, from the load's start to
# its end, the pages a writer changed while the device was still reading
# them (dma_pages_changed: the race's chances), the 8k pieces it copied
# from two versions (dma_pieces_mixed: a page read before a change and
# another after it, the torn pages themselves), the writes it captured
# with the delay and the bytes written; the ledger client counts commits.
# A crash cycle shows damage only when a torn copy reaches the media and the
# cut loses the write that repairs it; these counts see the race itself,
# in every load.
# Usage: race.sh [--config C] [--reps N] [--seconds S] [--variants V,...]
#                [--out DIR] [--commit SHA] [--dma-delay-us US] [--check]
# (defaults: lbs-atomic-off, 6 reps, 10 s, every variant)
# Rows are appended to DIR/race.csv; a variant's load already there (same
# variant and rep) is not run again, so a run can be stopped and resumed.
# --check: every load must have committed transactions and had writes
# captured with the delay (else the count could not have been above 0).
# vm: mem=3072 timeout=1500
# test: race after=pg-template -- --reps 1 --seconds 5 --variants evict,busy --check
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

config=lbs-atomic-off reps=6 secs=10 only='' out=/lbs-out commit=unknown check=0
while [ $# -gt 0 ]; do
	case $1 in
	--config) config=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--seconds) secs=${2:?}; shift 2 ;;
	--variants) only=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--commit) commit=${2:?}; shift 2 ;;
	--dma-delay-us) WL_DMA_DELAY_US=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	*) t_fail "unknown argument '$1'" ;;
	esac
done
for v in "$reps" "$secs" "$WL_DMA_DELAY_US"; do
	case $v in '' | *[!0-9]*) t_fail "--reps, --seconds and --dma-delay-us take whole numbers, got '$v'" ;; esac
done
if [ "$reps" -lt 1 ] || [ "$secs" -lt 1 ]; then t_fail "--reps and --seconds must be at least 1"; fi
[ "$WL_DMA_DELAY_US" -gt 0 ] ||
	t_fail "--dma-delay-us 0: the device copies each write at submission, where the race cannot happen"
T_NAME=race
wl_config "$config"
wl_pg_build
t_require sysbench runuser

# race.tsv: VARIANTS in table order, their fields by name.
RACE_TSV=/lbs/src/workloads/race.tsv
declare -A V_SET V_SB V_CKPT
VARIANTS=()
while IFS=$'\t' read -r name set sb ckpt what; do
	case $name in '' | '#'*) continue ;; esac
	[[ $name =~ ^[a-z0-9-]+$ ]] || t_fail "$RACE_TSV: bad variant name '$name'"
	[ -n "$what" ] || t_fail "$RACE_TSV: variant $name has not five fields"
	[[ $set == - || $set =~ ^[a-z_]+=[A-Za-z0-9_.]+(,[a-z_]+=[A-Za-z0-9_.]+)*$ ]] ||
		t_fail "$RACE_TSV: variant $name: settings '$set' are not NAME=VALUE,..."
	[[ $sb == - || $sb =~ ^--[a-z-]+=[A-Za-z0-9_.]+(,--[a-z-]+=[A-Za-z0-9_.]+)*$ ]] ||
		t_fail "$RACE_TSV: variant $name: sysbench arguments '$sb' are not --NAME=VALUE,..."
	[[ $ckpt =~ ^[0-9]+$ ]] || t_fail "$RACE_TSV: variant $name: ckpt_every '$ckpt' is not a whole number"
	VARIANTS+=("$name") V_SET[$name]=$set V_SB[$name]=$sb V_CKPT[$name]=$ckpt
done <"$RACE_TSV"
[ ${#VARIANTS[@]} -gt 0 ] || t_fail "$RACE_TSV names no variant"
if [ -n "$only" ]; then
	IFS=, read -r -a picked <<<"$only"
	for v in "${picked[@]}"; do
		[ -n "${V_CKPT[$v]+x}" ] || t_fail "--variants: no variant '$v' in $RACE_TSV (it has: ${VARIANTS[*]})"
	done
	VARIANTS=("${picked[@]}")
fi

csv=$out/race.csv
mkdir -p "$out"
# A test (--check) judges its own loads only: it starts a new CSV.
[ "$check" -eq 0 ] || rm -f "$csv"
wl_csv "$csv" kernel,commit,config,xfs_mount,dma_delay_us,variant,rep,seconds,commits,writes,dma_writes,bytes_written,dma_pages_changed,dma_pieces_mixed add
trap 'wl_writeback default || true' EXIT
wl_template

# done_already VARIANT REP: the load is in the CSV.  A CSV of another
# configuration, load length or device model is refused: its rounds would
# be paired with these.
done_already() { awk -F, -v v="$1" -v r="$2" 'NR > 1 && $6 == v && $7 == r { f = 1 } END { exit !f }' "$csv"; }
other=$(awk -F, -v c="$config" -v s="$secs" -v d="$WL_DMA_DELAY_US" \
	'NR > 1 && ($3 != c || $8 != s || $5 != d) { print $3 " " $8 " s " $5 " us"; exit }' "$csv")
[ -z "$other" ] || t_fail "$csv has loads of another run ($other): move it away"

# load VARIANT REP: one load, its row appended to the CSV.
load() {
	local v=$1 rep=$2 kv sb=() t0 next c0 w0 b0 n0 commits sbp changed dma bytes writes m0 mixed
	wl_device
	{
		echo "# race.sh: the crash loop's eviction setup, variant $v"
		wl_evict_settings
		if [ "${V_SET[$v]}" != - ]; then
			for kv in ${V_SET[$v]//,/ }; do echo "${kv%%=*} = '${kv#*=}'"; done
		fi
	} >>"$WL_DATA/postgresql.conf"
	[ "${V_SB[$v]}" = - ] || IFS=, read -r -a sb <<<"${V_SB[$v]}"
	rm -f "$WL_LOG"
	wl_pg_start || { tail -n 20 "$WL_LOG" >&2; t_fail "$v: the server did not start"; }
	wl_sess_open
	rm -f /tmp/race.ledger
	wl_ledger_start /tmp/race.ledger $((secs + 120))
	(wl_sysbench oltp_write_only --time=$((secs + 120)) "${sb[@]}" run) >/tmp/race-sb.out 2>&1 &
	sbp=$!
	disown "$sbp" "$WL_LEDGER_PID"
	wl_writeback fast
	c0=$(tb_stat dma_pages_changed) m0=$(tb_stat dma_pieces_mixed) w0=$(tb_stat dma_writes) b0=$(tb_stat bytes_written) n0=$(tb_stat writes)
	t0=${EPOCHREALTIME/[.,]/}
	next=$((t0 + V_CKPT[$v] * 1000000))
	while [ $((${EPOCHREALTIME/[.,]/} - t0)) -lt $((secs * 1000000)) ]; do
		sleep 0.2
		if [ "${V_CKPT[$v]}" -gt 0 ] && [ "${EPOCHREALTIME/[.,]/}" -ge "$next" ]; then
			wl_sess_send "CHECKPOINT;" || t_fail "$v: sending a CHECKPOINT failed"
			next=$((next + V_CKPT[$v] * 1000000))
		fi
	done
	changed=$(($(tb_stat dma_pages_changed) - c0))
	mixed=$(($(tb_stat dma_pieces_mixed) - m0))
	dma=$(($(tb_stat dma_writes) - w0))
	bytes=$(($(tb_stat bytes_written) - b0))
	writes=$(($(tb_stat writes) - n0))
	wl_writeback default
	pkill -9 -P "$sbp" 2>/dev/null || true
	kill -9 "$sbp" "$WL_LEDGER_PID" 2>/dev/null || true
	wl_pg_kill
	wait
	commits=0
	[ ! -s /tmp/race.ledger ] || commits=$(grep -c '^c ' /tmp/race.ledger || true)
	wl_device_remove
	echo "$(uname -r),$commit,$config,$WL_MOUNT,$WL_DMA_DELAY_US,$v,$rep,$secs,$commits,$writes,$dma,$bytes,$changed,$mixed" >>"$csv"
	t_log "$v rep $rep: $changed pages changed while captured ($mixed $((WL_PG_BS / 1024))k pieces mixed), $dma writes captured with the delay" \
		"($writes in all, $((bytes >> 20)) MiB), $commits commits in $secs s"
	if [ "$check" -eq 1 ]; then
		[ "$commits" -gt 0 ] || t_fail "$v rep $rep: the ledger client committed nothing"
		[ "$dma" -gt 0 ] || t_fail "$v rep $rep: no write was captured with the delay (dma_delay_us $WL_DMA_DELAY_US)"
	fi
}

n=${#VARIANTS[@]} ran=0
for rep in $(seq 1 "$reps"); do
	for i in $(seq 0 $((n - 1))); do
		v=${VARIANTS[$(((i + rep - 1) % n))]}
		if done_already "$v" "$rep"; then continue; fi
		t_log "$v rep $rep of $reps ($config, ${secs} s): ${V_SET[$v]} ${V_SB[$v]} checkpoint every ${V_CKPT[$v]} s"
		load "$v" "$rep"
		ran=$((ran + 1))
	done
done
t_pass "$ran loads of $secs s ($n variants, $reps reps) on $config: rows in $csv"
