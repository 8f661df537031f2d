#!/bin/bash
# Cut groups and disarming: devices in one cut_group lose power together,
# whether one is cut by hand or by an armed cut_after_writes on another; a
# cut disarms every member's armed cut, and power on disarms too, so an
# armed cut can never strike later (during log recovery, say).
# test: tornblk.group-cut kernels=default,debug
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
a=$(t_tornblk_create ga size_mb=16 cut_group=5)
b=$(t_tornblk_create gb size_mb=16 cut_group=5)
t_tornblk_create gc size_mb=16 >/dev/null
power() { cat "$TB_CFG/$1/power"; }
wr() { dd if=/dev/zero of="$1" bs=4k count="${2:-1}" oflag=direct conv=notrunc status=none 2>/dev/null; }

echo 1 >"$TB_CFG/ga/cut_group" 2>/dev/null && t_fail "cut_group changed on a live device"

# By hand: cutting ga cuts gb, not gc.
wr "$a"; wr "$b"
t_tornblk_cut ga
[ "$(power gb)" = 0 ] || t_fail "gb kept power when ga was cut"
[ "$(power gc)" = 1 ] || t_fail "gc is not in the group but lost power"
[ "$(t_tornblk_stat gb cut_writes)" -eq 1 ] || t_fail "gb's cut did not see its cached write"
t_tornblk_on ga; t_tornblk_on gb

# Armed on gb, struck by gb's 3rd write: ga goes down at the same instant.
echo 3 >"$TB_CFG/gb/cut_after_writes"
echo 50 >"$TB_CFG/ga/cut_after_writes"
wr "$b" 2 || true
[ "$(power ga)" = 1 ] || t_fail "the armed cut struck before its 3rd write"
wr "$b" 1 || true
[ "$(power gb)$(power ga)" = 00 ] || t_fail "the armed cut on gb did not cut the group"
[ "$(cat "$TB_CFG/ga/cut_after_writes")" = 0 ] || t_fail "the group cut left ga's cut armed"
t_tornblk_on ga; t_tornblk_on gb

# A manual cut disarms, and so does power on.
echo 2 >"$TB_CFG/ga/cut_after_writes"
t_tornblk_cut ga
[ "$(cat "$TB_CFG/ga/cut_after_writes")" = 0 ] || t_fail "a manual cut left the armed cut in place"
t_tornblk_on ga; t_tornblk_on gb
wr "$a" 4 || t_fail "writes after power on failed"
[ "$(power ga)" = 1 ] || t_fail "a disarmed cut struck after power on"
echo 2 >"$TB_CFG/gc/cut_after_writes"
t_tornblk_cut gc
echo 2 >"$TB_CFG/gc/cut_after_writes"
t_tornblk_on gc
[ "$(cat "$TB_CFG/gc/cut_after_writes")" = 0 ] || t_fail "power on did not disarm cut_after_writes"

# Concurrent I/O on both members while an armed cut strikes: no write
# lands on either device after the cut (all later I/O fails).
t_tornblk_on gc
echo 200 >"$TB_CFG/ga/cut_after_writes"
wr "$a" 400 & wr "$b" 400 & wait || true
[ "$(power ga)$(power gb)" = 00 ] || t_fail "concurrent armed cut did not cut both"
wa=$(t_tornblk_stat ga writes) wb=$(t_tornblk_stat gb writes)
wr "$a" 1 && t_fail "a write after the cut succeeded"
[ "$(t_tornblk_stat ga writes) $(t_tornblk_stat gb writes)" = "$wa $wb" ] ||
	t_fail "writes counted after the group cut"
t_tornblk_on ga; t_tornblk_on gb
t_tornblk_remove ga; t_tornblk_remove gb; t_tornblk_remove gc
t_pass "cut groups cut together; cuts and power on disarm"
