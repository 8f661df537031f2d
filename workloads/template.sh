#!/bin/bash
# The crash profile's cluster templates (lib.sh's wl_template: initdb -k,
# sysbench prepare, the ledger's tables), one per PostgreSQL page size the
# crash configurations use, built once for a whole test run and left in
# /lbs-out as tars with the key of what each was built from.
# Every crash test (and checks-bite) of the same run declares after=pg-template
# and unpacks it instead of building its own, which costs a minute of
# emulated CPU each; one whose key differs, or that runs without it, builds
# its own as before.
# vm: mem=2048 timeout=600
# test: pg-template
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

t_require tar sha256sum
# One for each PostgreSQL build the configurations use (configs.tsv's pg_bs).
cfgs=$(wl_configs --crash) || t_fail "no crash configurations"
# shellcheck disable=SC2086  # configuration names are words
page_sizes=$(wl_page_sizes $cfgs) || t_fail "reading the configurations' page sizes failed"
saved=()
for WL_PG_BS in $page_sizes; do
	wl_pg_build
	wl_template
	wl_template_save /lbs-out
	saved+=("$(basename "$WL_TEMPLATE") (key $(wl_template_key))")
done
[ ${#saved[@]} -gt 0 ] || t_fail "no template saved"
t_pass "templates saved: ${saved[*]}"
