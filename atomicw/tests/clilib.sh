# shellcheck shell=bash
# Helpers for the host tests of the atomicw binary, tests/cli/*.sh.  A test
# runs as `TEST PATH-TO-atomicw`, works in a scratch directory of its own
# ($scratch, removed at exit) and ends with cli_done.  Nothing here needs
# root, a block device or a kernel of ours.
set -euo pipefail
AW=${1:?usage: $0 PATH-TO-atomicw}
name=$(basename "$0" .sh)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fails=0 checks=0 rc=0 out=

fail() {
	printf '%s: FAIL: %s\n' "$name" "$*" >&2
	fails=$((fails + 1))
}

# check WHAT CMD...: CMD must succeed.
check() {
	local what=$1
	shift
	checks=$((checks + 1))
	"$@" || fail "$what"
}

# run ARGS...: run atomicw; its exit status in $rc, stdout and stderr in $out.
run() {
	rc=0
	out=$("$AW" "$@" 2>&1) || rc=$?
}

# refuses WHAT PATTERN ARGS...: atomicw ARGS must exit 1 saying PATTERN.
refuses() {
	local what=$1 pat=$2
	shift 2
	checks=$((checks + 1))
	run "$@"
	if [ "$rc" -ne 1 ] || ! grep -q -- "$pat" <<<"$out"; then
		fail "$what: want exit 1 and '$pat'; got exit $rc: $out"
	fi
}

# works WHAT ARGS...: atomicw ARGS must exit 0.
works() {
	local what=$1
	shift
	checks=$((checks + 1))
	run "$@"
	[ "$rc" -eq 0 ] || fail "$what: want exit 0; got exit $rc: $out"
}

# same_bytes WHAT FILE SUM: FILE's cksum must still be SUM.
same_bytes() {
	checks=$((checks + 1))
	[ "$(cksum <"$2")" = "$3" ] || fail "$1: $2 was changed"
}

cli_done() {
	[ "$fails" -eq 0 ] || { echo "$name: $fails of $checks checks failed" >&2; exit 1; }
	echo "$name: $checks checks passed"
}

# absent WHAT PATH...: none of the paths exists (each is removed after, so
# that the next case starts clean).
absent() {
	local what=$1 p
	shift
	for p in "$@"; do
		check "$what: $p was left behind" test ! -e "$p"
		rm -f "$p"
	done
}

# grown WHAT FILE: FILE, 64k before the command, is still 64k (put back to
# that after).
grown() {
	check "$1: $2 was grown or not shrunk back" test "$(stat -c %s "$2")" -eq 65536
	truncate -s 64k "$2"
}
