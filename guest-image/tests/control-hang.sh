#!/bin/bash
# Control: a guest that never finishes must be stopped and reported as a hang.
# vm: timeout=25
# test: harness.detects-hang expect=3
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
echo "control: hanging on purpose"
sleep 100000
