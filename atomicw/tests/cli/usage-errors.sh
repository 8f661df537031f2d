#!/usr/bin/env bash
# A usage error is one line on stderr that points to the right manual:
# 'atomicw --help' when there is no command, 'atomicw CMD --help' when there
# is one (also when it came as 'help CMD'), never an empty name.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

# points WHAT HINT ARGS...: atomicw ARGS exits 1 with one line on stderr,
# nothing on stdout, ending in (see 'HINT').
points() {
	local what=$1 hint=$2 err rc=0
	shift 2
	checks=$((checks + 1))
	err=$("$AW" "$@" 2>&1 >"$scratch/stdout") || rc=$?
	if [ "$rc" -ne 1 ] || [ -s "$scratch/stdout" ] || [ "$(wc -l <<<"$err")" -ne 1 ] ||
		[ "${err%"(see '$hint')"}" = "$err" ]; then
		fail "$what: want exit 1 and one line ending (see '$hint'); got exit $rc: $err"
	fi
}

points "an unknown command" "atomicw --help" frobnicate x
points "no command" "atomicw --help"
points "help of an unknown command" "atomicw --help" help frobnicate
points "a bad option" "atomicw write --help" write x --bogus
points "help CMD with more" "atomicw write --help" help write x
cli_done
