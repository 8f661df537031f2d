#!/usr/bin/env bash
# Host unit test: workloads/hostbench refuses every path that is not the
# mount point of a dedicated filesystem, and bad options, before it touches
# anything (no package, no directory, no server).  Safe on any machine: each
# case stops at argument checking.  And README.md does not promise that it
# installs PostgreSQL.
set -euo pipefail
hb=$(cd "$(dirname "$0")/.." && pwd)/hostbench
fails=0 n=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# refuses WHAT PATTERN ARGS...: hostbench ARGS must fail with PATTERN on stderr.
refuses() {
	local what=$1 pat=$2 out rc=0
	shift 2
	n=$((n + 1))
	out=$("$hb" "$@" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -q -- "$pat" <<<"$out"; then
		printf 'hostbench-refusals: FAIL: %s: exit %s, output: %s\n' "$what" "$rc" "$out" >&2
		fails=$((fails + 1))
	fi
}

refuses "no mount" "name at least one MOUNT"
refuses "unknown option" "unknown option" --frobnicate /
refuses "bad --reps" "take whole numbers" --reps x /
refuses "zero --reps" "at least 1" --reps 0 /
if [ "$(id -u)" -eq 0 ]; then
	refuses "a missing path" "does not exist" "$scratch/none"
	refuses "a plain directory" "is not a mount point" "$scratch"
	refuses "the root filesystem" "is not a dedicated filesystem" /
	refuses "a symlink to /" "is not a dedicated filesystem" "$(ln -s / "$scratch/root" && echo "$scratch/root")"
	# A filesystem on no block device: the message names its source.
	if [ "$(findmnt -n -o FSROOT -M /proc | tail -n 1)" = / ]; then
		refuses "a pseudo filesystem" "/proc: its source '$(findmnt -n -o SOURCE -M /proc | tail -n 1)' is not a device" /proc
	fi
else
	refuses "not root" "run as root" "$scratch"
fi
# Nothing was made where it was refused.
[ -z "$(find "$scratch" -mindepth 1 -maxdepth 1 ! -name root)" ] || {
	echo "hostbench-refusals: FAIL: files appeared in $scratch" >&2
	fails=$((fails + 1))
}
# What the README says of packages is what hostbench does: it installs
# sysbench if missing, but refuses to install PostgreSQL (Debian's package
# creates and starts a cluster of its own) and asks for it first.
readme=$(tr '\n' ' ' <"$(dirname "$hb")/../README.md" | tr -s ' ')
if grep -qE 'installs[^.;]*postgresql-15' <<<"$readme" ||
	! grep -qF 'PostgreSQL 15 must already be installed' <<<"$readme"; then
	echo "hostbench-refusals: FAIL: README.md says hostbench installs postgresql-15; it refuses to" >&2
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || exit 1
echo "hostbench-refusals: $n refusals as expected"
