# shellcheck shell=bash
# Helpers for in-guest tests (sourced by each test script in the guest).
# A test calls t_require for what it needs, t_log to report, t_fail to fail
# and t_skip when the guest lacks something; it ends with t_pass.
# Every guest script starts with
#     . /lbs/src/guest-image/testlib.sh || exit 1
# so that it stops when this file is missing, and this file refuses to go on
# anywhere but in the test guest: the scripts format, cut and load modules
# as root, which must never happen on the host.
set -euo pipefail

# The guest's PID 1 is guest-image/init, installed as /sbin/lbs-init and
# named on the kernel command line by run-vm.
if ! grep -qw 'init=/sbin/lbs-init' /proc/cmdline 2>/dev/null; then
	printf '%s: refusing to run outside the test guest (no init=/sbin/lbs-init on the kernel command line); use guest-image/run-vm\n' \
		"$(basename "${BASH_SOURCE[1]:-$0}")" >&2
	exit 1
fi

T_NAME=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
T_SKIP=77

# Diagnostics go to stderr, so that a failure inside $(...) is still seen.
t_log() { printf '[%s] %s\n' "$T_NAME" "$*" >&2; }
t_fail() { printf '[%s] FAIL: %s\n' "$T_NAME" "$*" >&2; exit 1; }
t_skip() { printf '[%s] SKIP: %s\n' "$T_NAME" "$*" >&2; exit "$T_SKIP"; }
t_pass() { printf '[%s] PASS%s\n' "$T_NAME" "${1:+: $1}"; exit 0; }

# t_require CMD...: skip when a command is not in the guest.
t_require() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || t_skip "$c not available in the guest"
	done
}

# t_expect_fail DESCRIPTION CMD...: CMD must fail; its output is kept in
# T_OUTPUT for the caller to check the message.
t_expect_fail() {
	local what=$1
	shift
	if T_OUTPUT=$("$@" 2>&1); then
		t_fail "$what: '$*' succeeded but must fail"
	fi
	t_log "$what: refused as expected: $(printf '%s' "$T_OUTPUT" | tr '\n' ' ' | cut -c1-200)"
}

# t_scratch_disk N: path of the N-th scratch disk the runner attached (from 1).
t_scratch_disk() {
	local letters=bcdefgh dev
	dev=/dev/vd${letters:$(($1 - 1)):1}
	[ -b "$dev" ] || t_fail "scratch disk $1 ($dev) missing: the test needs --disk"
	echo "$dev"
}

# t_mkfs_xfs DEV BLOCKSIZE [MKFS-ARGS...]: make an XFS filesystem.
t_mkfs_xfs() {
	local dev=$1 bs=$2
	shift 2
	mkfs.xfs -f -q -b size="$bs" "$@" "$dev" || t_fail "mkfs.xfs -b size=$bs $* $dev failed"
}

# t_mount DEV DIR [OPTS]: mount and register an unmount at exit.
t_mount() {
	mkdir -p "$2"
	mount ${3:+-o "$3"} "$1" "$2" || t_fail "mount $1 $2 failed: $(dmesg | tail -n 3)"
}

# t_xfs_check DEV: the filesystem (unmounted) must be clean.
t_xfs_check() {
	local log
	log=$(xfs_repair -n "$1" 2>&1) || { printf '%s\n' "$log"; t_fail "xfs_repair -n $1 found problems"; }
	t_log "xfs_repair -n $1: clean"
}

# t_write_pair A B OFFSET LENGTH SKIP [direct]: copy LENGTH bytes from SKIP
# in $T_RANDOM to OFFSET in both A (O_DIRECT when asked) and B (its
# reference copy, always buffered).  Callers fill $T_RANDOM first.
T_RANDOM=/tmp/random
t_write_pair() {
	local flag=${6:+oflag=direct} f
	for f in "$1" "$2"; do
		dd if="$T_RANDOM" of="$f" bs="$4" count=1 iflag=skip_bytes skip="$5" \
			oflag=seek_bytes seek="$3" conv=notrunc status=none ${flag:+"$flag"} ||
			t_fail "dd write of $4 bytes at $3 to $f ${6:-buffered} failed"
		flag=
	done
}

# --- tornblk ---------------------------------------------------------------
ATOMICW=/lbs/build/atomicw/atomicw
TB_CFG=/sys/kernel/config/tornblk

t_tornblk_load() {
	[ -d "$TB_CFG" ] && return 0
	modprobe tornblk || t_fail "modprobe tornblk failed"
}

# t_tornblk_create NAME [ATTR=VALUE...]: configure and power on a tornblk
# device; prints its /dev path.
t_tornblk_create() {
	local name=$1 kv
	shift
	t_tornblk_load
	mkdir "$TB_CFG/$name" || t_fail "mkdir $TB_CFG/$name failed"
	for kv in "$@"; do
		echo "${kv#*=}" >"$TB_CFG/$name/${kv%%=*}" ||
			t_fail "tornblk $name: setting ${kv%%=*}=${kv#*=} was refused"
	done
	echo 1 >"$TB_CFG/$name/power" || t_fail "tornblk $name: power on failed: $(dmesg | tail -n 1)"
	t_wait_bdev "/dev/$name"
	echo "/dev/$name"
}

# t_wait_bdev DEV: wait up to 5 s for a block device node to appear.
t_wait_bdev() {
	local tries=50
	while [ $tries -gt 0 ]; do
		[ -b "$1" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	t_fail "$1 did not appear"
}

t_tornblk_cut() { echo 0 >"$TB_CFG/$1/power" || t_fail "power cut of $1 failed"; }
t_tornblk_on() { echo 1 >"$TB_CFG/$1/power" || t_fail "power on of $1 failed"; }
t_tornblk_remove() { rmdir "$TB_CFG/$1" || t_fail "rmdir $TB_CFG/$1 failed"; }

# t_tornblk_stat NAME KEY: one counter from debugfs.
t_tornblk_stat() {
	awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' \
		"/sys/kernel/debug/tornblk/$1/stats" || t_fail "no counter $2 for $1"
}

# t_reap_within SECS PID WHAT: PID (a background job of the caller) must end
# within SECS seconds, whatever its status (a cut makes it fail); reaped.
t_reap_within() {
	local tries=$(($1 * 10))
	while kill -0 "$2" 2>/dev/null && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	! kill -0 "$2" 2>/dev/null || t_fail "$3 still waits $1 s later"
	wait "$2" || true
}

# t_tornblk_settle NAME: wait until NAME holds a flush (hold_flush) and has
# had no write for 2 s (at most 60 s; the debug kernel's AIL push pauses for
# more than 1 s), so that a cut finds everything the kernel had to write in
# the device's cache.
t_tornblk_settle() {
	local prev=-1 now stable=0 tries=600
	while [ $tries -gt 0 ] && [ $stable -lt 20 ]; do
		sleep 0.1
		tries=$((tries - 1))
		now=$(t_tornblk_stat "$1" writes)
		if [ "$(t_tornblk_stat "$1" held_now)" -ge 1 ] && [ "$now" = "$prev" ]; then
			stable=$((stable + 1))
		else
			stable=0
		fi
		prev=$now
	done
	[ $stable -ge 20 ] || t_fail "$1: no flush held, or writes still coming, after 60 s"
}

# t_tornblk_hist_below NAME KIND BYTES: writes in tornblk's histogram KIND
# (write_size, write_align, atomic_size, atomic_align) below BYTES.
t_tornblk_hist_below() {
	awk -v k="$2" -v b="$3" '$1 == k && $2 + 0 < b { n += $3 } END { print n + 0 }' \
		"/sys/kernel/debug/tornblk/$1/hist"
}

# t_tornblk_hist_above NAME KIND BYTES: the same, above BYTES.
t_tornblk_hist_above() {
	awk -v k="$2" -v b="$3" '$1 == k && $2 + 0 > b { n += $3 } END { print n + 0 }' \
		"/sys/kernel/debug/tornblk/$1/hist"
}

# t_bytes_of FILE OFFSET LEN: the distinct byte values (decimal, each
# followed by a space) of LEN bytes at OFFSET of FILE.
t_bytes_of() {
	dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none |
		od -An -tu1 -v | tr -s ' \n' '\n' | sed '/^$/d' | sort -u | tr '\n' ' '
}

# t_bytes_are FILE OFFSET LEN BYTE: LEN bytes at OFFSET of FILE all hold
# BYTE (decimal), or the test fails.
t_bytes_are() {
	local got
	got=$(t_bytes_of "$1" "$2" "$3")
	[ "$got" = "$4 " ] || t_fail "$3 bytes at $2 of $1 hold [$got], expected only $4"
}

# t_info_field PATH KEY: one value from 'atomicw info PATH', or the test fails.
t_info_field() {
	"$ATOMICW" info "$1" | awk -v k="$2:" '$1 == k { print $2; found = 1 } END { exit !found }' ||
		t_fail "atomicw info $1 has no '$2'"
}

# t_probe_expect EXPECT ARGS...: one 'atomicw probe ARGS' (an RWF_ATOMIC
# write), whose answer must be EXPECT ('ok' or an errno name).
t_probe_expect() {
	local expect=$1 out
	shift
	out=$("$ATOMICW" probe "$@" 2>&1) || true
	case $out in
	*": $expect"*) t_log "  $out" ;;
	*) t_fail "expected $expect from probe $*, got: $out" ;;
	esac
}

# t_verify DEV JOURNAL [VERIFY-ARGS...]: run atomicw verify, print its
# summary, and store its exit status in T_VERIFY_RC (0 clean; 16+ bits
# torn/corrupt/lost).
t_verify() {
	T_VERIFY_RC=0
	T_VERIFY_OUT=$("$ATOMICW" verify "$1" --journal "$2" "${@:3}") || T_VERIFY_RC=$?
	[ "$T_VERIFY_RC" -eq 0 ] || [ "$T_VERIFY_RC" -ge 16 ] ||
		t_fail "atomicw verify $1 failed to run (exit $T_VERIFY_RC): $T_VERIFY_OUT"
	t_log "$(grep '^verify:' <<<"$T_VERIFY_OUT")"
	# The first damaged blocks, so that a failure says which sectors (no
	# process substitution: the guest has no /dev/fd).
	local line
	while read -r line; do
		[ -z "$line" ] || t_log "  $line"
	done <<<"$(grep -m 3 -E '^block [0-9]+: corrupt' <<<"$T_VERIFY_OUT" || true)"
}

# t_verify_count NAME: one count (torn, lost, ...) from the last t_verify.
t_verify_count() {
	grep '^verify:' <<<"$T_VERIFY_OUT" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'
}
