/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tornblk: a RAM block device with a volatile write cache that tears
 * unflushed writes at a simulated power cut.
 */
#ifndef TORNBLK_H
#define TORNBLK_H

#include <linux/blkdev.h>
#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#define TORNBLK_SIZE_BUCKETS	13	/* 512 << 0 .. 512 << 11, larger */
#define TORNBLK_ALIGN_BUCKETS	13

/* Sparse page store: byte-addressed, zero where never written. */
struct tornblk_store {
	struct xarray pages;
	u64 nr_pages;
};

/* One write sitting in the volatile cache, with a copy of its data. */
struct tornblk_rec {
	struct list_head list;
	sector_t sector;
	u32 len;
	bool atomic;
	u64 seq;
	u8 *data;
};

struct tornblk_hist {
	u64 size[TORNBLK_SIZE_BUCKETS];
	u64 align[TORNBLK_ALIGN_BUCKETS];
};

struct tornblk_stats {
	u64 reads, writes, atomic_writes, flushes, fua_writes;
	u64 bytes_read, bytes_written, destaged, io_errors, cuts;
	/* the last power cut */
	u64 cut_writes, cut_units_persisted, cut_units_dropped, cut_writes_torn;
	u64 cut_atomic_persisted, cut_atomic_dropped;
	struct tornblk_hist all, atomic;
};

struct tornblk_dev {
	struct config_group group;
	char name[DISK_NAME_LEN];

	/* configuration, fixed once the disk exists */
	u64 size_mb;
	u32 logical_block_size;
	u32 physical_block_size;
	u32 pawu;
	u32 atomic_unit_min;
	u32 atomic_unit_max;
	u32 atomic_boundary;
	u32 cache_mb;
	bool write_cache;
	bool fua;
	/* may change at any time: they only matter at the next cut */
	u64 seed;
	u32 persist_pct;
	u64 cut_after_writes;	/* armed: cut right after this many more writes */

	/* runtime, under @lock */
	struct mutex lock;
	struct gendisk *disk;
	bool powered;
	struct tornblk_store current_data;	/* what reads see */
	struct tornblk_store media;		/* what survives a cut */
	struct list_head cache;			/* oldest first */
	u64 cache_bytes;
	u64 seq;
	struct tornblk_stats stats;
	struct dentry *debugfs;
};

/* Everything the module holds, over all devices (checked by the tests). */
extern atomic64_t tornblk_live_pages;
extern atomic64_t tornblk_live_recs;

/* store.c */
void tornblk_store_init(struct tornblk_store *s);
void tornblk_store_free(struct tornblk_store *s);
int tornblk_store_write(struct tornblk_store *s, sector_t sector,
			const void *buf, size_t len);
void tornblk_store_read(struct tornblk_store *s, sector_t sector, void *buf,
			size_t len);
int tornblk_store_copy(struct tornblk_store *dst, struct tornblk_store *src,
		       sector_t sector, size_t len);

/* cache.c */
int tornblk_cache_write(struct tornblk_dev *dev, sector_t sector,
			u8 *data, u32 len, bool atomic, bool fua);
int tornblk_cache_flush(struct tornblk_dev *dev);
int tornblk_power_cut(struct tornblk_dev *dev);
void tornblk_cache_drop(struct tornblk_dev *dev);

/* stats.c */
void tornblk_stats_write(struct tornblk_dev *dev, sector_t sector, u32 len,
			 bool atomic);
void tornblk_debugfs_add(struct tornblk_dev *dev);
void tornblk_debugfs_remove(struct tornblk_dev *dev);
int tornblk_debugfs_init(void);
void tornblk_debugfs_exit(void);

#endif
