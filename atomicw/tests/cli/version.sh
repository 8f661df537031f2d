#!/usr/bin/env bash
# atomicw --version prints the tool's name, its version and the journal
# format it writes, on one line of stdout, and exits 0.
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

works "--version" --version
check "--version says name and version: $out" \
	grep -qE '^atomicw [0-9]+\.[0-9]+\.[0-9]+ \(journal format [0-9]\)$' <<<"$out"
check "--version is one line: $out" test "$(wc -l <<<"$out")" -eq 1
refuses "--version with more" "unexpected argument" --version write
cli_done
