#!/bin/bash
# Control: a guest test that fails must make run-vm report a failure.
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
echo "control: this guest test fails on purpose"
exit 3
