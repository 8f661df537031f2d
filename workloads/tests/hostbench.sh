#!/bin/bash
# workloads/hostbench end to end on two mounted XFS filesystems (4k and 16k
# blocks on the guest's virtio disks, a stand-in for a server's drives): it
# refuses a mount that holds other files and a path that is no mount point,
# then runs the fixed work with full_page_writes on and off on each (and
# the noise twin), and writes its CSV and report.
# vm: disk=2G disk=2G mem=3072 timeout=1500
# test: hostbench
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_require mkfs.xfs python3
a=$(t_scratch_disk 1) b=$(t_scratch_disk 2)
t_mkfs_xfs "$a" 4096
t_mkfs_xfs "$b" 16384
t_mount "$a" /mnt/x4k
t_mount "$b" /mnt/x16k
hb=/lbs/src/workloads/hostbench
export LBS_REPORT_NO_PLOTS=1 WL_TABLE_SIZE=5000 WL_PGBENCH_SCALE=1

touch /mnt/x16k/precious
t_expect_fail "a mount that holds other files" "$hb" /mnt/x16k
grep -q 'holds other files' <<<"$T_OUTPUT" || t_fail "refused, but not for holding other files: $T_OUTPUT"
rm /mnt/x16k/precious
mkdir -p /tmp/notamount
t_expect_fail "a directory that is no mount point" "$hb" /tmp/notamount

out=/tmp/hb/workloads
"$hb" --reps 1 --events 400 --ckpt-every 200 --warmup-events 40 --workloads oltp_write_only \
	--twin --out "$out" /mnt/x4k /mnt/x16k >&2 || t_fail "hostbench failed"
csv=$out/bench/bench.csv
rows=$(($(wc -l <"$csv") - 1))
[ "$rows" -eq 5 ] || t_fail "$rows runs in $csv, not 5 (2 mounts x full_page_writes on/off + twin)"
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ fpw = $c["full_page_writes"]; fpi = $c["wal_fpi"] + 0
	  if ((fpw == "on") != (fpi > 0)) print $c["config"] ": full_page_writes " fpw ", " fpi " images"
	  if ($c["data_dev_bytes"] + 0 <= 0) print $c["config"] ": no data device bytes"
	  if ($c["transactions"] != 400) print $c["config"] ": " $c["transactions"] " transactions" }' "$csv")
[ -z "$bad" ] || t_fail "$bad"
grep -q 'Summary: each configuration against x4k-fpw-on' "$out/REPORT.md" ||
	t_fail "the report does not compare against the first configuration"
grep -q '| x16k-fpw-off | 16384 |' "$out/REPORT.md" ||
	t_fail "the report does not name x16k's 16k blocks"
[ ! -e /mnt/x4k/lbs-hostbench/data ] || t_fail "the last run's data directory was left on /mnt/x4k"
t_pass "hostbench: refusals, 5 runs, report against x4k-fpw-on"
