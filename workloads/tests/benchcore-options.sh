#!/usr/bin/env bash
# Host unit test of benchcore.sh's bench_validate (bench.sh and hostbench):
# each transaction count is checked as itself, and a refusal names its own
# option and value.  benchcore.sh only defines functions; nothing runs.
set -euo pipefail
# shellcheck source=workloads/benchcore.sh
. "$(dirname "$0")/../benchcore.sh"
fails=0 n=0
# shellcheck disable=SC2317  # called by bench_validate
t_fail() { printf '%s\n' "$*" >&2; exit 1; }
WL_THREADS=4
wl_list=(oltp_write_only)

# validates WHAT EVENTS WARMUP K-LIST [PATTERN [NOT-PATTERN]]: bench_validate
# with those options accepts them (no PATTERN), or refuses them with a
# message that holds PATTERN and not NOT-PATTERN.
validates() {
	local what=$1 out rc=0
	n=$((n + 1))
	# shellcheck disable=SC2034  # read by bench_validate
	out=$(events=$2 warmup=$3; IFS=, read -r -a k_list <<<"$4"; bench_validate 2>&1) || rc=$?
	if [ -z "${5:-}" ]; then
		[ "$rc" -eq 0 ] || { echo "benchcore-options: FAIL: $what: refused: $out" >&2; fails=$((fails + 1)); }
	elif [ "$rc" -eq 0 ] || [[ $out != *"$5"* ]] || { [ -n "${6:-}" ] && [[ $out == *"$6"* ]]; }; then
		echo "benchcore-options: FAIL: $what: exit $rc, '$out' (want '$5', not '${6:-}')" >&2
		fails=$((fails + 1))
	fi
}

validates "good options" 2000 200 500,1000
validates "bad --events" x 200 500 "--events takes whole numbers above 0, got 'x'" --ckpt-every
validates "zero --events" 0 200 500 "--events takes whole numbers above 0, got '0'" --ckpt-every
validates "bad --warmup-events" 2000 1e3 500 "--warmup-events takes whole numbers above 0, got '1e3'" --ckpt-every
validates "bad --ckpt-every" 2000 200 500,y "--ckpt-every takes whole numbers above 0, got 'y'"
validates "--events against the threads" 2002 200 2 "--events 2002 is not a multiple of the 4 client threads"
validates "--warmup-events against the threads" 2000 202 500 "--warmup-events 202 is not a multiple of the 4 client threads"
validates "--ckpt-every against the threads" 2000 200 10 "--ckpt-every 10 is not a multiple of the 4 client threads"
validates "--events against --ckpt-every" 2000 200 300 "--events 2000 is not a multiple of --ckpt-every 300"
validates "the size-triggered regime" 2000 200 500,wal32
validates "walMB below PostgreSQL's floor" 2000 200 wal16 "--ckpt-every wal16: walMB takes a max_wal_size of at least 32 MB"
validates "walMB without a number" 2000 200 walx "--ckpt-every walx: walMB takes"
[ "$fails" -eq 0 ] || exit 1
echo "benchcore-options: $n option sets judged as expected"
