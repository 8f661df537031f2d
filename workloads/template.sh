#!/bin/bash
# The crash profile's cluster templates (lib.sh's wl_template: initdb -k,
# sysbench prepare, the ledger's tables), one per PostgreSQL page size the
# crash configurations use, made sure of in the host's template cache
# (/lbs/templates: built and saved there unless it holds them under their
# key already) before the tests that use them start.
# Every crash test (and checks-bite, race) declares after=pg-template and
# unpacks them instead of each building its own, a minute of emulated CPU
# or more, two or more at once.
# vm: mem=2048 timeout=600
# test: pg-template
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
# shellcheck source=workloads/lib.sh
. /lbs/src/workloads/lib.sh

t_require tar sha256sum mountpoint
mountpoint -q "$WL_TEMPLATE_CACHE" || t_fail "the template cache is not mounted at $WL_TEMPLATE_CACHE (run-vm shares it)"
# One for each PostgreSQL build the configurations use (configs.tsv's pg_bs).
cfgs=$(wl_configs --crash) || t_fail "no crash configurations"
# shellcheck disable=SC2086  # configuration names are words
page_sizes=$(wl_page_sizes $cfgs) || t_fail "reading the configurations' page sizes failed"
saved=()
for WL_PG_BS in $page_sizes; do
	wl_pg_build
	wl_template
	wl_template_file
	[ -f "$WL_TEMPLATE_FILE" ] || t_fail "$(basename "$WL_TEMPLATE") is not in the cache ($WL_TEMPLATE_FILE)"
	saved+=("$(basename "$WL_TEMPLATE_FILE")")
done
[ ${#saved[@]} -gt 0 ] || t_fail "no template"
t_pass "templates in the cache: ${saved[*]}"
