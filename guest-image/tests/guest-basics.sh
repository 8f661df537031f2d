#!/bin/bash
# The guest the runner boots is the one the tests assume: our kernel, 4k
# pages, lo up, /dev/shm mounted, the shares and modules in place.
# vm: timeout=300
# test: harness.pass
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
[ "$(getconf PAGESIZE)" -eq 4096 ] || t_fail "page size $(getconf PAGESIZE), want 4096"
ip -o link show lo | grep -q 'UP' || t_fail "lo is not up"
mountpoint -q /dev/shm || t_fail "/dev/shm is not mounted"
[ -r /lbs/build/kernel.env ] || t_fail "build dir not shared at /lbs/build"
[ -d "/lib/modules/$(uname -r)" ] || t_fail "no modules for $(uname -r)"
modprobe scsi_debug || t_fail "modprobe scsi_debug failed"
rmmod scsi_debug
echo probe >"$LBS_OUT/written-by-guest" || t_fail "cannot write results to $LBS_OUT"
for c in psql pg_ctlcluster sysbench mkfs.xfs xfs_io; do
	command -v "$c" >/dev/null || [ -x "/usr/lib/postgresql/15/bin/$c" ] || t_fail "$c missing"
done
t_pass "kernel $(uname -r), page size $(getconf PAGESIZE)"
