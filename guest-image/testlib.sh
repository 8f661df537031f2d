# shellcheck shell=bash
# Helpers for in-guest tests (sourced by each test script in the guest).
# A test calls t_require for what it needs, t_log to report, t_fail to fail
# and t_skip when the guest lacks something; it ends with t_pass.
set -euo pipefail

T_NAME=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
T_SKIP=77

t_log() { printf '[%s] %s\n' "$T_NAME" "$*"; }
t_fail() { printf '[%s] FAIL: %s\n' "$T_NAME" "$*"; exit 1; }
t_skip() { printf '[%s] SKIP: %s\n' "$T_NAME" "$*"; exit "$T_SKIP"; }
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
