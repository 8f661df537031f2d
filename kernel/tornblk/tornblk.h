/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tornblk: a RAM block device with a volatile write cache that tears
 * unflushed writes at a simulated power cut.
 *
 * One job per file; a file calls only files to its right, never back:
 *
 *   main -> configfs -> disk -> io -> capture -> group -> cache -> store
 *
 * and stats (counters, debugfs) is called by all and calls none.
 *
 *   main.c	module init and exit
 *   configfs.c	attributes and their checks, making and releasing devices
 *   disk.c	cross-checks at power on, the gendisk, power on and off
 *   io.c	bio submission, reads, held flushes
 *   capture.c	a write's data, copied at submission or at DMA time
 *   group.c	cut groups, the group cut, ending the bios it failed
 *   cache.c	the volatile cache, flush, power cut
 *   store.c	sparse page stores
 *   stats.c	counters and debugfs; takes tornblk_cfg_lock (configfs.c)
 */
#ifndef TORNBLK_H
#define TORNBLK_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
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
	bool meta;	/* REQ_META: filesystem metadata or log, not file data */
	u64 seq;	/* order in the cache, and the coins' input */
	u64 nr;		/* the device's write number (stats.writes) */
	u8 *data;
};

struct tornblk_hist {
	u64 size[TORNBLK_SIZE_BUCKETS];
	u64 align[TORNBLK_ALIGN_BUCKETS];
};

struct tornblk_stats {
	u64 reads, writes, atomic_writes, meta_writes, flushes, fua_writes;
	u64 atomic_meta_writes;	/* REQ_ATOMIC writes that are also REQ_META */
	u64 bytes_read, bytes_written, destaged, io_errors, cuts;
	u64 misaligned, alloc_failures, held, dma_writes;
	u64 dma_pages_changed;	/* pages changed after their capture began */
	u64 dma_pieces_mixed;	/* tear_unit pieces copied from two versions */
	u64 dma_uncounted;	/* captured writes whose pieces went unchecked */
	u64 last_flush_write;	/* the write count when the cache last emptied */
	/* the last power cut */
	u64 cut_writes, cut_units_persisted, cut_units_dropped, cut_writes_torn;
	u64 cut_atomic_persisted, cut_atomic_dropped;
	u64 cut_rewound;	/* cached writes dropped whole by cut_rewind_to */
	/*
	 * tear_unit pieces of the cached writes: all, partly persisted, and
	 * partly persisted with both parts differing from the old media
	 */
	u64 cut_pieces, cut_pieces_partial, cut_pieces_torn;
	u64 cut_pieces_torn_meta;	/* ... of those, in REQ_META writes */
	/* every write, the REQ_ATOMIC ones, those of them that are not REQ_META */
	struct tornblk_hist all, atomic, atomic_data;
};

/*
 * Devices that lose power at the same instant (data and WAL volumes).  Every
 * device is in one: its own (id 0) unless cut_group names a shared one.
 * The group's mutex serializes all I/O and runtime state of its members,
 * so a cut of every member happens between two I/Os of any of them.
 */
struct tornblk_group {
	struct list_head node;		/* in the list of shared groups */
	u32 id;
	struct mutex lock;		/* the I/O lock of all members */
	struct list_head devs;
	unsigned int nr_devs;
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
	u32 chunk_size;		/* bytes; the block layer splits bios at it */
	u32 cache_mb;
	bool write_cache;
	bool fua;
	u32 cut_group;
	bool partitions;	/* scan for a partition table (else none) */

	/* runtime, under grp->lock; seed .. hold_flush may change any time */
	u64 seed;
	u32 persist_pct;
	u64 cut_after_writes;	/* armed: cut right after this many more writes */
	u32 cut_min_bytes;	/* ... counting only data writes of at least this */
	bool cut_after_mixed;	/* armed: cut right after a torn DMA copy */
	u32 tear_unit;		/* granularity of the torn-piece counts */
	u64 cut_rewind_to;	/* a cut drops cached writes numbered above */
	bool hold_flush;	/* park flushes and FUA writes until a cut */
	struct bio_list held;	/* the parked bios, in order */
	u32 dma_delay_us;	/* 0: copy write data at submission */
	bool stable_writes;	/* fixed: advertise BLK_FEAT_STABLE_WRITES */
	unsigned int dma_inflight;	/* writes being captured */
	struct workqueue_struct *dma_wq;

	struct tornblk_group *grp;
	struct list_head grp_node;
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

/* Configuration changes (configfs.c): before a group lock, never after. */
extern struct mutex tornblk_cfg_lock;

static inline void tornblk_lock(struct tornblk_dev *dev)
{
	mutex_lock(&dev->grp->lock);
}

static inline void tornblk_unlock(struct tornblk_dev *dev)
{
	mutex_unlock(&dev->grp->lock);
}

#define tornblk_assert_locked(dev) lockdep_assert_held(&(dev)->grp->lock)

/* stats.c: called by all the others */

/* Everything the module holds, over all devices (checked by the tests). */
extern atomic64_t tornblk_live_pages;
extern atomic64_t tornblk_live_recs;

/* Test hook: the next N allocations on the I/O path fail (debugfs). */
extern atomic_t tornblk_fail_allocs;
bool tornblk_should_fail_alloc(void);

void tornblk_stats_write(struct tornblk_dev *dev, sector_t sector, u32 len,
			 blk_opf_t opf);
void tornblk_debugfs_add(struct tornblk_dev *dev);
void tornblk_debugfs_remove(struct tornblk_dev *dev);
int tornblk_debugfs_init(void);
void tornblk_debugfs_exit(void);

/* store.c: writes go only to ranges made ready by tornblk_store_prepare */
u8 *tornblk_buf_alloc(size_t len);
void tornblk_store_init(struct tornblk_store *s);
void tornblk_store_free(struct tornblk_store *s);
int tornblk_store_prepare(struct tornblk_store *s, sector_t sector, size_t len);
void tornblk_store_write(struct tornblk_store *s, sector_t sector,
			 const void *buf, size_t len);
void tornblk_store_read(struct tornblk_store *s, sector_t sector, void *buf,
			size_t len);
bool tornblk_store_differs(struct tornblk_store *s, sector_t sector,
			   const void *buf, size_t len);
void tornblk_store_copy(struct tornblk_store *dst, struct tornblk_store *src,
			sector_t sector, size_t len);

/* cache.c */
int tornblk_cache_write(struct tornblk_dev *dev, sector_t sector,
			u8 *data, u32 len, blk_opf_t opf);
void tornblk_cache_flush(struct tornblk_dev *dev);
void tornblk_power_cut(struct tornblk_dev *dev);
void tornblk_cache_drop(struct tornblk_dev *dev);

/* group.c */
int tornblk_group_set(struct tornblk_dev *dev, u32 id);
void tornblk_group_leave(struct tornblk_dev *dev);
void tornblk_group_cut(struct tornblk_dev *dev, const char *why,
		       struct bio_list *failed);
void tornblk_end_failed(struct bio_list *failed);

/* capture.c: with the group lock held */
blk_status_t tornblk_write_copy(struct tornblk_dev *dev, struct bio *bio,
				struct bio_list *failed);
bool tornblk_dma_queue(struct tornblk_dev *dev, struct bio *bio);

/* io.c */
extern const struct block_device_operations tornblk_fops;
void tornblk_release_held(struct tornblk_dev *dev);

/* disk.c */
int tornblk_set_power(struct tornblk_dev *dev, bool on);
int tornblk_shrink_atomic(struct tornblk_dev *dev, u32 max);
void tornblk_del_disk(struct tornblk_dev *dev);
int tornblk_disk_init(void);
void tornblk_disk_exit(void);

/* configfs.c */
int tornblk_configfs_init(void);
void tornblk_configfs_exit(void);

#endif
