#!/bin/bash
# Control: provoke a kernel WARNING or panic through lkdtm; run-vm must
# report it even though this script itself exits 0.
# vm: timeout=300
# test: harness.detects-warning expect=2 -- WARNING
# test: harness.detects-panic expect=4 -- PANIC
# test: harness.detects-kasan kernels=debug expect=2 -- READ_AFTER_FREE
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
modprobe lkdtm
echo "control: provoking $1 through lkdtm"
echo "$1" >/sys/kernel/debug/provoke-crash/DIRECT
exit 0
