// SPDX-License-Identifier: GPL-2.0
/*
 * tornblk: a torn-write injector.
 *
 * A RAM block device with a volatile write cache, configured through
 * configfs in the style of null_blk:
 *
 *   mkdir /sys/kernel/config/tornblk/tb0       # a device called tb0
 *   echo 16384 > .../tb0/pawu                   # configure it
 *   echo 1 > .../tb0/power                      # /dev/tb0 appears
 *   echo 0 > .../tb0/power                      # power cut: tear the cache
 *   echo 1 > .../tb0/power                      # power back: persisted state
 *
 * Geometry and limits are fixed once the disk exists; seed, persist_pct,
 * tear_unit, cut_after_writes, cut_min_bytes, cut_after_mixed, cut_rewind_to,
 * hold_flush and dma_delay_us may change at any time.
 *
 * This file only registers the module's parts; tornblk.h lists the files
 * and the one direction in which they call each other.
 */
#include "tornblk.h"

#include <linux/module.h>

static int __init tornblk_init(void)
{
	int ret;

	ret = tornblk_disk_init();
	if (ret)
		return ret;
	tornblk_debugfs_init();
	ret = tornblk_configfs_init();
	if (ret) {
		tornblk_debugfs_exit();
		tornblk_disk_exit();
	}
	return ret;
}

static void __exit tornblk_exit(void)
{
	tornblk_configfs_exit();
	tornblk_debugfs_exit();
	tornblk_disk_exit();
}

module_init(tornblk_init);
module_exit(tornblk_exit);
MODULE_DESCRIPTION("Block device that tears unflushed writes at a power cut");
MODULE_LICENSE("GPL");
