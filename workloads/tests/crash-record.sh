#!/usr/bin/env bash
# Host unit test of the crash cycle's record (checks.sh) and the
# configuration loader (configs.sh), sourced here on the host, where they
# only define functions and read their tables:
# - crash.csv's header is exactly that of every committed crash.csv;
# - a row is written by column name (NA where nothing ran), and a value
#   with a comma is refused;
# - the verdict comes from the columns checks.tsv marks: each marked column
#   alone makes a cycle corrupt (or +lost), NA does not, untested reasons
#   count only without damage;
# - phases run in their order, table order within one, and a blocking
#   check stops the phases that need it;
# - adding a check is one function and one line of checks.tsv: a scratch
#   table with one more check gives its column in header and row;
# - the loader: names by role, a configuration's fields, an unknown one
#   refused, role fields, and Python's reader agrees with it;
# - a configuration is one row of configs.tsv (a scratch table with one more);
# - no other file reads configs.tsv or roles.tsv itself.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fails=0 n=0
t_fail() { echo "refused: $*" >&2; exit 1; }
t_log() { :; }
ok() { # ok WHAT: the last [ ... ] or command succeeded
	n=$((n + 1))
}
bad() {
	echo "crash-record: FAIL: $*" >&2
	fails=$((fails + 1))
}
# shellcheck source=workloads/configs.sh
. "$top/workloads/configs.sh"
# shellcheck source=workloads/checks.sh
. "$top/workloads/checks.sh"

# 1. The header of every committed crash.csv.
mapfile -t csvs < <(cd "$top" && git ls-files 'results/workloads/crash-*/crash.csv')
[ ${#csvs[@]} -gt 0 ] || bad "no committed crash.csv to compare with"
for f in "${csvs[@]}"; do
	if [ "$(head -n 1 "$top/$f")" = "$(crash_columns)" ]; then ok; else bad "$f's header differs from crash_columns"; fi
done

# 2. A row by column name.
R=()
R[kernel]=k R[config]=baseline R[verdict]=clean
row=$(crash_row)
IFS=, read -r -a cols <<<"$(crash_columns)"
IFS=, read -r -a vals <<<"$row"
[ ${#vals[@]} -eq ${#cols[@]} ] || bad "the row has ${#vals[@]} fields, the header ${#cols[@]}"
for i in "${!cols[@]}"; do
	case ${cols[$i]} in
	kernel) want=k ;; config) want=baseline ;; verdict) want=clean ;; *) want=NA ;;
	esac
	[ "${vals[$i]}" = "$want" ] || bad "column ${cols[$i]}: '${vals[$i]}', not '$want'"
done
ok
R[cut_mode]='a,b'
if (crash_row >/dev/null 2>&1); then bad "a value with a comma was written"; else ok; fi

# 3. Verdicts.
clean_r() {
	R=() CRASH_UNTESTED=()
	R[mount]=ok R[recovery]=ok R[redo]=yes R[log_page_errors]=0 R[fsm_pages_zeroed]=3
	R[amcheck_rc]=0 R[amcheck_errors]=0 R[visibility_errors]=0 R[checksum_bad]=0
	R[xfs_repair]=clean R[commits_seen]=10 R[commits_lost]=0 R[xact_wrong]=0 R[index_mismatch]=0
	R[counters_wrong]=0 R[updates_lost]=0 R[updates_checked]=7
}
verdict_is() { # verdict_is WANT WHAT
	crash_verdict
	if [ "${R[verdict]}" = "$1" ]; then ok; else bad "$2: verdict '${R[verdict]}', not '$1'"; fi
}
clean_r
verdict_is clean "every marked column clean"
for kv in mount=failed recovery=failed log_page_errors=1 amcheck_rc=2 visibility_errors=4 \
	checksum_bad=1 xfs_repair=data-damaged xact_wrong=2 index_mismatch=error index_mismatch=3 counters_wrong=1; do
	clean_r
	R[${kv%%=*}]=${kv#*=}
	verdict_is corrupt "$kv alone"
done
clean_r
R[commits_lost]=3
verdict_is clean+lost "commits_lost=3 alone"
clean_r
R[updates_lost]=2
verdict_is clean+lost "updates_lost=2 alone"
clean_r
R[amcheck_rc]=NA R[checksum_bad]=NA R[commits_lost]=NA
verdict_is clean "NA: a check that did not run is no damage"
clean_r
CRASH_UNTESTED=("no WAL redo")
verdict_is untested "an untested reason"
R[checksum_bad]=2
verdict_is corrupt "damage outweighs an untested reason"
clean_r
R[fsm_pages_zeroed]=9 R[amcheck_errors]=9 R[redo]=no R[commits_seen]=0
verdict_is clean "unmarked columns only describe"

# 4. Phases: order, and a block.
ran=()
for i in "${!CHK_NAME[@]}"; do
	eval "check_${CHK_NAME[$i]}() { ran+=(${CHK_NAME[$i]}); [ \"${CHK_NAME[$i]}\" != \"\${BLOCKER:-}\" ] || crash_block; }"
done
for p in powered mount start online stopped unmounted; do crash_phase "$p"; done
want="ledger_seen mount recovery amcheck visibility ledger pg_xact counters updates indexes checksums xfs_repair"
if [ "${ran[*]}" = "$want" ]; then ok; else bad "phases ran '${ran[*]}', not '$want'"; fi
# shellcheck disable=SC2034  # read by the stub checks above
BLOCKER=mount
crash_phase mount
if [ "$CRASH_BLOCKED" = 1 ]; then ok; else bad "a blocking check did not set CRASH_BLOCKED"; fi
# shellcheck disable=SC2034
BLOCKER=
crash_phase mount
if [ "$CRASH_BLOCKED" = 0 ]; then ok; else bad "CRASH_BLOCKED stayed set after a phase without a block"; fi

# 5. One more check: one line in checks.tsv (and its function).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$top/workloads/checks.tsv" "$scratch/checks.tsv"
printf 'scratch\tonline\tcorrupt\tscratch_errors=0 scratch_pages\ta scratch check\n' >>"$scratch/checks.tsv"
if (
	WL_CHECKS_TSV=$scratch/checks.tsv
	# shellcheck disable=SC2317  # called by crash_phase
	check_scratch() { :; } # its function (checks.sh refuses a check without one)
	# shellcheck source=workloads/checks.sh
	. "$top/workloads/checks.sh"
	[[ $(crash_columns) == *,updates_lost,updates_checked,index_mismatch,scratch_errors,scratch_pages,seconds,verdict ]] ||
		{ echo "crash-record: FAIL: the new check's columns are not in the header: $(crash_columns)" >&2; exit 1; }
	clean_r
	R[scratch_errors]=1
	crash_verdict
	[ "${R[verdict]}" = corrupt ] || { echo "crash-record: FAIL: the new check's column is not judged" >&2; exit 1; }
); then ok; else bad "adding a check"; fi

# 6. The loader.
if [ "$(wl_configs --crash | paste -sd' ')" = "$(wl_configs protected protected-untorn control probe lost-control | paste -sd' ')" ]; then ok; else
	bad "the crash loop's roles are not protected, protected-untorn, control, probe and lost-control"
fi
wl_config lbs-atomic-wb-onedev
if [ "$WL_SYNC $WL_PGWAL" = "on data" ]; then ok; else bad "wl_config lbs-atomic-wb-onedev: $WL_SYNC $WL_PGWAL"; fi
wl_config baseline-async
if [ "$WL_SYNC $WL_PGWAL $WL_ROLE" = "off own lost-control" ]; then ok; else
	bad "wl_config baseline-async: $WL_SYNC $WL_PGWAL $WL_ROLE"
fi
sed 's/^lbs-only\(\(\t[^\t]*\)\{6\}\t\)on\t/lbs-only\1maybe\t/' \
	"$top/workloads/configs.tsv" >"$scratch/badsync.tsv"
if msg=$(WL_CONFIGS_TSV=$scratch/badsync.tsv wl_config lbs-only 2>&1); then bad "synchronous_commit 'maybe' accepted"; else
	if [[ $msg == *"synchronous_commit 'maybe'"* ]]; then ok; else bad "synchronous_commit 'maybe': '$msg'"; fi
fi
wl_config lbs-atomic-off
if [ "$WL_MOUNT $WL_CUTS $WL_ROLE" = "nountorn mixed probe" ]; then ok; else bad "wl_config lbs-atomic-off: $WL_MOUNT $WL_CUTS $WL_ROLE"; fi
wl_config lbs-atomic-off-race
if [ "$WL_MOUNT $WL_CUTS $WL_ROLE" = "nountorn race control" ]; then ok; else
	bad "wl_config lbs-atomic-off-race: $WL_MOUNT $WL_CUTS $WL_ROLE"
fi
sed 's/^lbs-only\(\(\t[^\t]*\)\{9\}\t\)mixed\t/lbs-only\1sometimes\t/' \
	"$top/workloads/configs.tsv" >"$scratch/badcuts.tsv"
if msg=$(WL_CONFIGS_TSV=$scratch/badcuts.tsv wl_config lbs-only 2>&1); then bad "cuts 'sometimes' accepted"; else
	if [[ $msg == *"cuts 'sometimes'"* ]]; then ok; else bad "cuts 'sometimes': '$msg'"; fi
fi
sed 's/^lbs-only\(\(\t[^\t]*\)\{3\}\t\)8192\t/lbs-only\14096\t/' \
	"$top/workloads/configs.tsv" >"$scratch/badpgbs.tsv"
if msg=$(WL_CONFIGS_TSV=$scratch/badpgbs.tsv wl_config lbs-only 2>&1); then bad "pg_bs 4096 accepted"; else
	if [[ $msg == *"pg_bs '4096'"* ]]; then ok; else bad "pg_bs 4096: '$msg'"; fi
fi
wl_config lbs-atomic-wb
if [ "$WL_XFS_BS $WL_PAWU $WL_ATOMIC $WL_PG_BS $WL_FPW $WL_WALCOMP $WL_MOUNT $WL_ROLE" = "16384 4096 16384 8192 off off - protected-untorn" ]; then ok; else
	bad "wl_config lbs-atomic-wb: $WL_XFS_BS $WL_PAWU $WL_ATOMIC $WL_PG_BS $WL_FPW $WL_WALCOMP $WL_MOUNT $WL_ROLE"
fi
if msg=$(wl_config no-such 2>&1); then bad "an unknown configuration was accepted"; else
	if [[ $msg == *"unknown configuration 'no-such'"* ]]; then ok; else bad "unknown configuration: '$msg'"; fi
fi
if [ "$(wl_role_field control expect)" = corrupt ]; then ok; else bad "control's expect"; fi
# One template and server build per page size, in the order first used.
if [ "$(wl_page_sizes baseline pg16k-baseline lbs-atomic pg16k-unsafe | paste -sd' ')" = "8192 16384" ] &&
	[ -z "$(wl_page_sizes)" ]; then ok; else
	bad "wl_page_sizes: '$(wl_page_sizes baseline pg16k-baseline lbs-atomic pg16k-unsafe | paste -sd' ')'"
fi
if (wl_page_sizes baseline no-such >/dev/null 2>&1); then bad "wl_page_sizes took an unknown configuration"; else ok; fi
if [ "$(LBS_EVIDENCE_CONTROL=7 wl_evidence_target unsafe)" = 7 ]; then ok; else bad "LBS_EVIDENCE_CONTROL"; fi
if (LBS_EVIDENCE_CONTROL=x wl_evidence_target unsafe >/dev/null 2>&1); then bad "LBS_EVIDENCE_CONTROL=x accepted"; else ok; fi
py=$(python3 -c "import sys; sys.path.insert(0, '$top/workloads'); import configs
print(' '.join(configs.CONFIGS)); print(' '.join(configs.crash_configs()))")
if [ "$py" = "$(wl_configs all | paste -sd' ')"$'\n'"$(wl_configs --crash | paste -sd' ')" ]; then ok; else
	bad "configs.py and configs.sh disagree: $py"
fi
printf 'x\t1\t2\n' >"$scratch/bad.tsv"
if (WL_CONFIGS_TSV=$scratch/bad.tsv wl_configs all >/dev/null 2>&1); then bad "a malformed table was read"; else ok; fi

# 7. A configuration is one row: with one more row in a scratch table, the
# crash test, the evidence target, the Python reader and the report's
# expectation all know it, with nothing else changed.
sed -n '1,/^# name/p' "$top/workloads/configs.tsv" >"$scratch/configs.tsv"
grep -v '^#' "$top/workloads/configs.tsv" >>"$scratch/configs.tsv"
printf 'lbs32k-atomic\t32768\t32768\t32768\t8192\toff\toff\ton\town\t-\tmixed\tprotected\t32k blocks on a 32k atomic unit\n' \
	>>"$scratch/configs.tsv"
if WL_CONFIGS_TSV=$scratch/configs.tsv bash "$top/workloads/configs.sh" tests |
	grep -qx 'crash.lbs32k-atomic after=pg-template -- lbs32k-atomic --cycles 2 --check'; then ok; else
	bad "a new configuration row has no crash test"
fi
if [ "$(WL_CONFIGS_TSV=$scratch/configs.tsv wl_evidence_target lbs32k-atomic)" = 60 ]; then ok; else
	bad "a new protected row has no evidence target of 60"
fi
py=$(WL_CONFIGS_TSV=$scratch/configs.tsv python3 -c "import sys; sys.path.insert(0, '$top/workloads')
import configs; print(configs.expect('lbs32k-atomic'), 'lbs32k-atomic' in configs.crash_configs(),
configs.expectation_text('lbs32k-atomic'))")
if [ "$py" = "clean True never corrupt, never lose a commit, every cycle tested something, no torn piece of file data" ]; then
	ok
else
	bad "configs.py on a new row: $py"
fi

# A check without its function is refused when checks.sh is sourced.
if (WL_CHECKS_TSV=$scratch/checks.tsv; unset -f check_xact
	# shellcheck source=workloads/checks.sh
	. "$top/workloads/checks.sh") 2>/dev/null; then
	bad "a check without its function was accepted"
else
	ok
fi
# A malformed roles.tsv stops the crash tests' list instead of emptying it.
cp "$top/workloads/roles.tsv" "$scratch/roles.tsv"
printf 'probe\tyes\n' >>"$scratch/roles.tsv"
if out=$(WL_ROLES_TSV=$scratch/roles.tsv bash "$top/workloads/configs.sh" tests 2>&1); then
	bad "a malformed roles.tsv gave the crash tests: $out"
else
	ok
fi
# lib.sh sources on the host (hostbench does), away from /lbs/src.
# (A shell of its own: in a condition, errexit would not stop at a failed '.'.)
if bash -c 'set -euo pipefail; WL_PROFILE=bench; . "$1"; declare -F wl_role_field >/dev/null' _ \
	"$top/workloads/lib.sh" 2>/dev/null; then ok; else
	bad "workloads/lib.sh does not source on the host"
fi

# 8. One reader of each table: no other file names one by its path
# (hostbench writes a table of its own into its results).
readers=$(git -C "$top" grep -nE '/(configs|roles|checks)\.tsv' -- '*.sh' '*.py' '*CMakeLists.txt' \
	'*/run' '*/hostbench' '*/demo' '*/test' | grep -vE '^[^:]+:[0-9]+:\s*#' |
	grep -vE '^(workloads/(configs|checks)\.(sh|py)|workloads/tests/crash-record\.sh|workloads/hostbench):' || true)
if [ -z "$readers" ]; then ok; else bad "tables read outside configs.sh/configs.py: $readers"; fi

[ "$fails" -eq 0 ] || { echo "crash-record: $fails failed" >&2; exit 1; }
# shellcheck disable=SC2031  # counted in this shell
echo "crash-record: $n checks passed"
