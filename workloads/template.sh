#!/bin/bash
# The crash profile's cluster template (lib.sh's wl_template: initdb -k,
# sysbench prepare, the ledger's tables), built once for a whole test run
# and left in /lbs-out as a tar with the key of what it was built from.
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
wl_template
wl_template_save /lbs-out
t_pass "template $(basename "$WL_TEMPLATE") saved with key $(wl_template_key)"
