# shellcheck shell=bash
# The one shell reader of configs.tsv and roles.tsv, sourced by the host
# (workloads/run, CMake through `configs.sh tests`) and the guest (lib.sh,
# so crash.sh, bench.sh and the tests).  It defines functions and the
# device model's default only: sourcing it does nothing else, anywhere.
# configs.py is its Python twin for the report.
#
# An error (unknown configuration or role, a malformed table) goes through
# t_fail in the guest, die on the host, or a line on stderr and exit 1.

WL_CONFIGS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WL_CONFIGS_TSV=${WL_CONFIGS_TSV:-$WL_CONFIGS_DIR/configs.tsv}
WL_ROLES_TSV=${WL_ROLES_TSV:-$WL_CONFIGS_DIR/roles.tsv}

# The device model of every workload run, crash loop and benchmark alike:
# tornblk reads a write's data dma_delay_us microseconds per page after
# submission, as a real device's DMA does (0 copies it at submission).  One
# name from the command line (--dma-delay-us) to the module attribute and
# the CSV column; this is its one default.
WL_DMA_DELAY_US_DEFAULT=100
WL_DMA_DELAY_US=${WL_DMA_DELAY_US:-$WL_DMA_DELAY_US_DEFAULT}

_wl_cfg_fail() {
	if declare -F t_fail >/dev/null; then
		t_fail "$*"
	elif declare -F die >/dev/null; then
		die "$*"
	fi
	printf 'configs: %s\n' "$*" >&2
	exit 1
}

# _wl_table FILE FIELDS: the table's rows (comments and blank lines left
# out), each checked to have FIELDS tab-separated fields.
_wl_table() {
	awk -F'\t' -v want="$2" -v f="$1" '
		/^#/ || /^[[:space:]]*$/ { next }
		NF != want { printf "%s:%d: %d fields, not %d\n", f, NR, NF, want > "/dev/stderr"; bad = 1; exit }
		{ print }
		END { exit bad }' "$1" || _wl_cfg_fail "malformed table $1"
}

# wl_configs [all | --crash | ROLE...]: configuration names in table order:
# all of them, those of the roles the crash loop runs, or those of the
# roles named.
wl_configs() {
	local roles
	case ${1:-all} in
	all) roles='' ;;
	--crash) roles=$(wl_roles_where crash yes | tr '\n' ' ') || return 1
		roles=" $roles " ;;
	*) roles=" $* " ;;
	esac
	_wl_table "$WL_CONFIGS_TSV" 13 | awk -F'\t' -v roles="$roles" \
		'roles == "" || index(roles, " " $12 " ") { print $1 }'
}

# wl_config NAME: XFS block, device pawu, REQ_ATOMIC unit, PostgreSQL's
# page size, full_page_writes, wal_compression, synchronous_commit, where
# pg_wal is (own or data), the data filesystem's mount options (- for
# none), where the crash loop cuts and role into WL_XFS_BS, WL_PAWU,
# WL_ATOMIC, WL_PG_BS, WL_FPW, WL_WALCOMP, WL_SYNC, WL_PGWAL, WL_MOUNT,
# WL_CUTS and WL_ROLE; WL_CONFIG is the name.
# shellcheck disable=SC2034  # used by the scripts that source this file
wl_config() {
	local line
	line=$(_wl_table "$WL_CONFIGS_TSV" 13 |
		awk -F'\t' -v n="$1" '$1 == n { print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }')
	[ -n "$line" ] || _wl_cfg_fail "unknown configuration '$1' ($(wl_configs all | tr '\n' ' '))"
	read -r WL_XFS_BS WL_PAWU WL_ATOMIC WL_PG_BS WL_FPW WL_WALCOMP WL_SYNC WL_PGWAL WL_MOUNT WL_CUTS WL_ROLE \
		<<<"$line"
	case $WL_PG_BS in 8192 | 16384) ;; *) _wl_cfg_fail "$1: pg_bs '$WL_PG_BS', not 8192 or 16384" ;; esac
	case $WL_SYNC in on | off) ;; *) _wl_cfg_fail "$1: synchronous_commit '$WL_SYNC', not on or off" ;; esac
	case $WL_PGWAL in own | data) ;; *) _wl_cfg_fail "$1: pg_wal '$WL_PGWAL', not own or data" ;; esac
	case $WL_CUTS in mixed | race) ;; *) _wl_cfg_fail "$1: cuts '$WL_CUTS', not mixed or race" ;; esac
	WL_CONFIG=$1
}

# wl_role_field ROLE FIELD: one field of roles.tsv (crash, evidence, test,
# expect, meaning) for ROLE.
wl_role_field() {
	local col
	case $2 in
	crash) col=2 ;; evidence) col=3 ;; test) col=4 ;; expect) col=5 ;; meaning) col=6 ;;
	*) _wl_cfg_fail "roles.tsv has no field '$2'" ;;
	esac
	_wl_table "$WL_ROLES_TSV" 6 | awk -F'\t' -v r="$1" -v c="$col" '
		$1 == r { print $c; found = 1 } END { exit !found }' ||
		_wl_cfg_fail "unknown role '$1' (roles.tsv: $(_wl_table "$WL_ROLES_TSV" 6 | cut -f1 | tr '\n' ' '))"
}

# wl_roles_where FIELD VALUE: the roles whose FIELD is VALUE.
wl_roles_where() {
	local col
	case $1 in crash) col=2 ;; expect) col=5 ;; *) _wl_cfg_fail "wl_roles_where: no field '$1'" ;; esac
	_wl_table "$WL_ROLES_TSV" 6 | awk -F'\t' -v v="$2" -v c="$col" '$c == v { print $1 }'
}

# wl_page_sizes NAME...: the PostgreSQL page sizes (pg_bs) these
# configurations use, each once, in the order first used: one template and
# one server build each.  Run in $(...): wl_config's settings stay there.
wl_page_sizes() {
	local c sizes=()
	for c; do
		wl_config "$c"
		[[ " ${sizes[*]} " == *" $WL_PG_BS "* ]] || sizes+=("$WL_PG_BS")
	done
	[ ${#sizes[@]} -eq 0 ] || printf '%s\n' "${sizes[@]}"
}

# wl_evidence_target NAME: crash cycles the evidence run collects for the
# configuration (roles.tsv; LBS_EVIDENCE_<ROLE> overrides it).
wl_evidence_target() {
	local role var n
	role=$(wl_config "$1" && echo "$WL_ROLE")
	var=LBS_EVIDENCE_$(tr 'a-z-' 'A-Z_' <<<"$role")
	n=${!var:-$(wl_role_field "$role" evidence)}
	case $n in '' | *[!0-9]*) _wl_cfg_fail "$var must be a whole number, got '$n'" ;; esac
	echo "$n"
}

# wl_crash_tests: crash.sh's test of every configuration whose role has
# one (roles.tsv's test field), as "# test:" declarations without the
# "# test:" (crash.sh's test-source, read by scripts/vm-tests).
wl_crash_tests() {
	local c args list
	list=$(wl_configs --crash) || return 1
	for c in $list; do
		wl_config "$c"
		args=$(wl_role_field "$WL_ROLE" test)
		[ "$args" = - ] || echo "crash.$c after=pg-template -- $c $args --check"
	done
}

# Run, not sourced: `configs.sh tests` (the crash tests) or
# `configs.sh names [ROLE...]`.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case ${1:-} in
	tests) wl_crash_tests ;;
	names) shift; wl_configs "$@" ;;
	*) _wl_cfg_fail "usage: configs.sh tests | names [all | --crash | ROLE...]" ;;
	esac
fi
