#!/bin/bash
# Control: provoke a kernel WARNING or panic through lkdtm; run-vm must
# report it even though this script itself exits 0.
set -euo pipefail
modprobe lkdtm
echo "control: provoking $1 through lkdtm"
echo "$1" >/sys/kernel/debug/provoke-crash/DIRECT
exit 0
