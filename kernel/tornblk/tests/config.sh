#!/bin/bash
# configfs input is validated: bad values and changes to a live device are
# refused with EINVAL and a one-line kernel message; the limits a device is
# given show up in sysfs and statx.
# test: tornblk.config
# shellcheck source=guest-image/testlib.sh
. /lbs/src/guest-image/testlib.sh || exit 1
t_tornblk_load
d=$TB_CFG/cfg
mkdir "$d"

refuse() { # refuse ATTR VALUE EXPECTED-MESSAGE
	dmesg -C
	if echo "$2" 2>/dev/null >"$d/$1"; then
		t_fail "$1=$2 was accepted"
	fi
	dmesg | grep -q "$3" || t_fail "$1=$2 refused without the message '$3': $(dmesg)"
	t_log "$1=$2 refused: $(dmesg | tail -n 1 | sed 's/^\[[^]]*\] //')"
}

refuse logical_block_size 3000 "not a power of two"
refuse logical_block_size 256 "not a power of two"
refuse pawu 0 "not a power of two"
refuse physical_block_size 131072 "not a power of two"
refuse persist_pct 101 "more than 100"
refuse size_mb 0 "must not be 0"
refuse atomic_unit_max 12288 "not a power of two"
refuse seed banana "not a number"
refuse partitions 2 "out of range"

# Cross-field checks happen at power on.
echo 4096 >"$d/logical_block_size"
echo 512 >"$d/pawu" 2>/dev/null && : # accepted alone ...
dmesg -C
if echo 1 2>/dev/null >"$d/power"; then t_fail "power on with pawu < logical_block_size worked"; fi
dmesg | grep -q "pawu is smaller than logical_block_size" || t_fail "no message for pawu < lbs"
echo 16384 >"$d/pawu"
echo 16384 >"$d/physical_block_size"
echo 4096 >"$d/atomic_unit_min"
echo 16384 >"$d/atomic_unit_max"
echo 1 >"$d/power" || t_fail "valid configuration refused: $(dmesg | tail -n 1)"
t_wait_bdev /dev/cfg

refuse logical_block_size 512 "cannot change once the device exists"
refuse pawu 4096 "cannot change once the device exists"
refuse partitions 1 "cannot change once the device exists"
echo 5 >"$d/seed" || t_fail "seed must be changeable on a live device"

q=/sys/block/cfg/queue
for kv in logical_block_size=4096 physical_block_size=16384 minimum_io_size=16384 \
	atomic_write_unit_min_bytes=4096 atomic_write_unit_max_bytes=16384; do
	got=$(cat "$q/${kv%%=*}")
	[ "$got" = "${kv#*=}" ] || t_fail "sysfs ${kv%%=*} is $got, want ${kv#*=}"
done
info=$("$ATOMICW" info /dev/cfg)
grep -q 'attr_write_atomic: *yes' <<<"$info" || t_fail "statx does not report STATX_ATTR_WRITE_ATOMIC: $info"
grep -q 'atomic_write_unit_max: *16384' <<<"$info" || t_fail "statx unit max wrong: $info"
lsblk -o NAME,LOG-SEC,PHY-SEC /dev/cfg
t_log "limits visible in sysfs, statx and lsblk"
rmdir "$d"
t_pass "bad configuration refused, limits advertised"
