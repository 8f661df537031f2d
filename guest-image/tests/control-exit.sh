#!/bin/bash
# Control: a guest test that fails must make run-vm report a failure.
# vm: timeout=300
# test: harness.detects-failure expect=1
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
echo "control: this guest test fails on purpose"
exit 3
