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
 * tear_unit, cut_after_writes, cut_rewind_to, hold_flush and dma_delay_us
 * may change at any time.
 */
#include "tornblk.h"

#include <linux/ctype.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>

#define TORNBLK_MAX_IO_SECTORS	2048	/* 1 MiB per bio */
#define TORNBLK_MINORS		16	/* the device and its first 15 partitions */
#define TORNBLK_MAX_BLOCK_SIZE	65536

static int tornblk_major;
static DEFINE_IDA(tornblk_minors);
DEFINE_MUTEX(tornblk_cfg_lock);		/* serializes configuration changes */

static inline struct tornblk_dev *to_tornblk_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct tornblk_dev, group);
}

/* I/O */

/* Both ends of a bio must lie on logical block boundaries. */
static bool tornblk_misaligned(struct tornblk_dev *dev, struct bio *bio)
{
	u32 mask = (dev->logical_block_size >> SECTOR_SHIFT) - 1;

	return (bio->bi_iter.bi_sector & mask) ||
	       ((bio->bi_iter.bi_size >> SECTOR_SHIFT) & mask) ||
	       (bio->bi_iter.bi_size & (SECTOR_SIZE - 1));
}

static blk_status_t tornblk_read(struct tornblk_dev *dev, struct bio *bio)
{
	sector_t sector = bio->bi_iter.bi_sector;
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter) {
		void *p = bvec_kmap_local(&bv);

		tornblk_store_read(&dev->current_data, sector, p, bv.bv_len);
		kunmap_local(p);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	dev->stats.reads++;
	dev->stats.bytes_read += bio->bi_iter.bi_size;
	return BLK_STS_OK;
}

/* Store a write whose data was copied to @buf (which the cache takes). */
blk_status_t tornblk_write_captured(struct tornblk_dev *dev, struct bio *bio,
				    u8 *buf, struct bio_list *failed)
{
	u32 len = bio->bi_iter.bi_size;
	int ret;

	tornblk_assert_locked(dev);
	/* the cache keeps or frees buf; on failure nothing changed */
	ret = tornblk_cache_write(dev, bio->bi_iter.bi_sector, buf, len,
				  bio->bi_opf);
	if (ret)
		return errno_to_blk_status(ret);
	tornblk_stats_write(dev, bio->bi_iter.bi_sector, len, bio->bi_opf);
	/*
	 * An armed cut strikes right after the device acknowledged the
	 * chosen write: a point in the I/O stream rather than in time, so
	 * that a test can land it among the writes it cares about.
	 */
	if (dev->cut_after_writes && !--dev->cut_after_writes)
		tornblk_group_cut(dev, "armed write count reached", failed);
	return BLK_STS_OK;
}

static blk_status_t tornblk_write(struct tornblk_dev *dev, struct bio *bio,
				  struct bio_list *failed)
{
	u8 *buf = tornblk_buf_alloc(bio->bi_iter.bi_size);
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off = 0;

	if (!buf) {
		dev->stats.alloc_failures++;
		return BLK_STS_RESOURCE;
	}
	bio_for_each_segment(bv, bio, iter) {
		memcpy_from_bvec(buf + off, &bv);
		off += bv.bv_len;
	}
	return tornblk_write_captured(dev, bio, buf, failed);
}

static blk_status_t tornblk_handle_bio(struct tornblk_dev *dev, struct bio *bio,
				       struct bio_list *failed)
{
	if (bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE) {
		if (tornblk_misaligned(dev, bio)) {
			dev->stats.misaligned++;
			return BLK_STS_IOERR;
		}
	}
	if (bio->bi_opf & REQ_PREFLUSH) {
		dev->stats.flushes++;
		tornblk_cache_flush(dev);
	}
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return tornblk_read(dev, bio);
	case REQ_OP_WRITE:
		if (!bio->bi_iter.bi_size)
			return BLK_STS_OK;	/* an empty flush */
		return tornblk_write(dev, bio, failed);
	default:
		return BLK_STS_NOTSUPP;
	}
}

/* End bios that a cut or power off failed, with no lock held. */
void tornblk_end_failed(struct bio_list *failed)
{
	struct bio *bio;

	while ((bio = bio_list_pop(failed))) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
	}
}

static void tornblk_submit_bio(struct bio *bio)
{
	struct tornblk_dev *dev = bio->bi_bdev->bd_disk->private_data;
	struct bio_list failed = BIO_EMPTY_LIST;
	blk_status_t status;

	bio = bio_split_to_limits(bio);
	if (!bio)
		return;
	tornblk_lock(dev);
	if (dev->powered && dev->hold_flush &&
	    (bio->bi_opf & (REQ_PREFLUSH | REQ_FUA))) {
		/* parked until hold_flush is cleared or the power fails */
		bio_list_add(&dev->held, bio);
		dev->stats.held++;
		tornblk_unlock(dev);
		return;
	}
	if (dev->powered && dev->dma_delay_us && bio_op(bio) == REQ_OP_WRITE &&
	    bio->bi_iter.bi_size && !tornblk_misaligned(dev, bio)) {
		/* the flush covers what completed before; the data comes later */
		if (bio->bi_opf & REQ_PREFLUSH) {
			dev->stats.flushes++;
			tornblk_cache_flush(dev);
			bio->bi_opf &= ~REQ_PREFLUSH;
		}
		if (tornblk_dma_queue(dev, bio)) {
			tornblk_unlock(dev);
			return;
		}
	}
	if (dev->powered) {
		status = tornblk_handle_bio(dev, bio, &failed);
	} else {
		dev->stats.io_errors++;
		status = BLK_STS_IOERR;
	}
	tornblk_unlock(dev);
	bio->bi_status = status;
	bio_endio(bio);
	tornblk_end_failed(&failed);
}

/* hold_flush 0: the parked bios run now, in order. */
static void tornblk_release_held(struct tornblk_dev *dev)
{
	struct bio_list held, failed = BIO_EMPTY_LIST;
	struct bio *bio;

	tornblk_lock(dev);
	dev->hold_flush = false;
	held = dev->held;
	bio_list_init(&dev->held);
	tornblk_unlock(dev);
	while ((bio = bio_list_pop(&held))) {
		tornblk_lock(dev);
		if (dev->powered) {
			bio->bi_status = tornblk_handle_bio(dev, bio, &failed);
		} else {
			dev->stats.io_errors++;
			bio->bi_status = BLK_STS_IOERR;
		}
		tornblk_unlock(dev);
		bio_endio(bio);
		tornblk_end_failed(&failed);
	}
}

static const struct block_device_operations tornblk_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= tornblk_submit_bio,
};

/* Creating and removing the disk */

static int tornblk_check_config(struct tornblk_dev *dev)
{
	const char *why = NULL;

	if (blk_validate_block_size(dev->logical_block_size))
		why = "logical_block_size is not supported by this kernel";
	else if (dev->physical_block_size < dev->logical_block_size)
		why = "physical_block_size is smaller than logical_block_size";
	else if (dev->pawu < dev->logical_block_size)
		why = "pawu is smaller than logical_block_size";
	else if (((dev->size_mb << 20) % dev->physical_block_size))
		why = "size is not a multiple of physical_block_size";
	else if (dev->atomic_unit_max &&
		 (dev->atomic_unit_min < dev->logical_block_size ||
		  dev->atomic_unit_min > dev->atomic_unit_max))
		why = "atomic_unit_min must lie between logical_block_size and atomic_unit_max";
	else if (!dev->atomic_unit_max && (dev->atomic_unit_min || dev->atomic_boundary))
		why = "atomic_unit_min/atomic_boundary set without atomic_unit_max";
	else if (dev->atomic_unit_max > (TORNBLK_MAX_IO_SECTORS << SECTOR_SHIFT))
		why = "atomic_unit_max is larger than the 1 MiB maximum I/O";
	else if (dev->atomic_boundary && dev->atomic_boundary < dev->atomic_unit_max)
		why = "atomic_boundary is smaller than atomic_unit_max";
	if (why)
		pr_warn("%s: %s\n", dev->name, why);
	return why ? -EINVAL : 0;
}

static int tornblk_add_disk(struct tornblk_dev *dev)
{
	struct queue_limits lim = {
		.logical_block_size	= dev->logical_block_size,
		.physical_block_size	= dev->physical_block_size,
		.io_min			= dev->pawu,
		.max_hw_sectors		= TORNBLK_MAX_IO_SECTORS,
		.atomic_write_hw_max	= dev->atomic_unit_max,
		.atomic_write_hw_unit_min = dev->atomic_unit_min,
		.atomic_write_hw_unit_max = dev->atomic_unit_max,
		.atomic_write_hw_boundary = dev->atomic_boundary,
	};
	struct gendisk *disk;
	int ret;

	ret = tornblk_check_config(dev);
	if (ret)
		return ret;
	if (dev->write_cache)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (dev->write_cache && dev->fua)
		lim.features |= BLK_FEAT_FUA;
	if (dev->stable_writes)
		lim.features |= BLK_FEAT_STABLE_WRITES;
	/* every device owns a block of minors, used only with partitions */
	ret = ida_alloc_max(&tornblk_minors, MINORMASK / TORNBLK_MINORS,
			    GFP_KERNEL);
	if (ret < 0)
		return ret;
	disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(disk)) {
		ida_free(&tornblk_minors, ret);
		return PTR_ERR(disk);
	}
	disk->major = tornblk_major;
	disk->first_minor = ret * TORNBLK_MINORS;
	disk->minors = dev->partitions ? TORNBLK_MINORS : 1;
	if (!dev->partitions)
		disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &tornblk_fops;
	disk->private_data = dev;
	strscpy(disk->disk_name, dev->name, DISK_NAME_LEN);
	set_capacity(disk, dev->size_mb << (20 - SECTOR_SHIFT));

	/* a cut of another group member reads both under the group lock */
	tornblk_lock(dev);
	dev->disk = disk;
	dev->powered = true;
	tornblk_unlock(dev);
	ret = add_disk(disk);
	if (ret) {
		tornblk_lock(dev);
		dev->disk = NULL;
		dev->powered = false;
		tornblk_unlock(dev);
		ida_free(&tornblk_minors, disk->first_minor / TORNBLK_MINORS);
		put_disk(disk);
		return ret;
	}
	pr_info("%s: %llu MiB, lbs %u, pbs %u, pawu %u, atomic %u..%u, cache %s\n",
		dev->name, dev->size_mb, dev->logical_block_size,
		dev->physical_block_size, dev->pawu, dev->atomic_unit_min,
		dev->atomic_unit_max, dev->write_cache ? "on" : "off");
	return 0;
}

static int tornblk_set_power(struct tornblk_dev *dev, bool on)
{
	struct bio_list failed = BIO_EMPTY_LIST;

	if (!dev->disk)
		return on ? tornblk_add_disk(dev) : 0;
	tornblk_lock(dev);
	if (on && !dev->powered) {
		dev->powered = true;
		dev->cut_after_writes = 0;	/* a cut armed before is gone */
	} else if (!on && dev->powered) {
		tornblk_group_cut(dev, "power=0", &failed);
	}
	tornblk_unlock(dev);
	tornblk_end_failed(&failed);
	return 0;
}

/* configfs attributes */

static int tornblk_fixed(struct tornblk_dev *dev, const char *attr)
{
	if (!dev->disk)
		return 0;
	pr_warn("%s: %s cannot change once the device exists\n",
		dev->name, attr);
	return -EBUSY;
}

static int tornblk_check_bs(struct tornblk_dev *dev, const char *attr, u64 v,
			    bool zero_ok)
{
	if ((zero_ok && !v) ||
	    (is_power_of_2(v) && v >= SECTOR_SIZE && v <= TORNBLK_MAX_BLOCK_SIZE))
		return tornblk_fixed(dev, attr);
	pr_warn("%s: %s=%llu is not a power of two from 512 to 65536%s\n",
		dev->name, attr, v, zero_ok ? " (or 0)" : "");
	return -EINVAL;
}

/*
 * The device keeps its data in RAM: it can never be filled beyond the
 * machine's memory, and the cache holds copies on top of that.
 */
static int tornblk_check_size(struct tornblk_dev *dev, const char *attr, u64 v)
{
	u64 ram_mb = totalram_pages() >> (20 - PAGE_SHIFT);
	u64 max = strcmp(attr, "cache_mb") ? ram_mb : ram_mb / 2;

	if (!v) {
		pr_warn("%s: %s must not be 0\n", dev->name, attr);
		return -EINVAL;
	}
	if (v > max) {
		pr_warn("%s: %s=%llu is more than %s the machine's %llu MiB of memory\n",
			dev->name, attr, v, max == ram_mb ? "" : "half of", ram_mb);
		return -EINVAL;
	}
	return tornblk_fixed(dev, attr);
}

static int tornblk_check_delay(struct tornblk_dev *dev, const char *attr, u64 v)
{
	if (v <= 100000)
		return 0;
	pr_warn("%s: %s=%llu is more than 100000 (0.1 s per page)\n",
		dev->name, attr, v);
	return -EINVAL;
}

static int tornblk_check_tear(struct tornblk_dev *dev, const char *attr, u64 v)
{
	if (is_power_of_2(v) && v >= SECTOR_SIZE && v <= TORNBLK_MAX_BLOCK_SIZE)
		return 0;
	pr_warn("%s: %s=%llu is not a power of two from 512 to 65536\n",
		dev->name, attr, v);
	return -EINVAL;
}

static int tornblk_check_pct(struct tornblk_dev *dev, const char *attr, u64 v)
{
	if (v <= 100)
		return 0;
	pr_warn("%s: %s=%llu is more than 100\n", dev->name, attr, v);
	return -EINVAL;
}

static int tornblk_check_any(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return 0;
}

static int tornblk_check_fixed(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return tornblk_fixed(dev, attr);
}

static int tornblk_check_lbs(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return tornblk_check_bs(dev, attr, v, false);
}

static int tornblk_check_limit(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return tornblk_check_bs(dev, attr, v, true);
}

/*
 * One show/store pair per attribute.  @CHECK validates a new value (and
 * refuses geometry changes once the disk exists) with a kernel message.
 */
#define TORNBLK_ATTR(NAME, CHECK)					\
static ssize_t tornblk_##NAME##_show(struct config_item *item, char *page)\
{									\
	return sysfs_emit(page, "%llu\n", (u64)to_tornblk_dev(item)->NAME);\
}									\
static ssize_t tornblk_##NAME##_store(struct config_item *item,		\
				      const char *page, size_t count)	\
{									\
	struct tornblk_dev *dev = to_tornblk_dev(item);			\
	u64 v;								\
	int ret = kstrtou64(page, 0, &v);				\
									\
	if (ret) {							\
		pr_warn("%s: " #NAME ": not a number\n", dev->name);\
		return ret;						\
	}								\
	if (v != (typeof(dev->NAME))v) {				\
		pr_warn("%s: " #NAME "=%llu is out of range\n", \
			dev->name, v);					\
		return -EINVAL;						\
	}								\
	mutex_lock(&tornblk_cfg_lock);					\
	ret = CHECK(dev, #NAME, v);					\
	if (!ret) {							\
		tornblk_lock(dev);					\
		dev->NAME = v;						\
		tornblk_unlock(dev);					\
	}								\
	mutex_unlock(&tornblk_cfg_lock);				\
	return ret ? ret : count;					\
}									\
CONFIGFS_ATTR(tornblk_, NAME)

TORNBLK_ATTR(size_mb, tornblk_check_size);
TORNBLK_ATTR(logical_block_size, tornblk_check_lbs);
TORNBLK_ATTR(physical_block_size, tornblk_check_lbs);
TORNBLK_ATTR(pawu, tornblk_check_lbs);
TORNBLK_ATTR(atomic_unit_min, tornblk_check_limit);
TORNBLK_ATTR(atomic_unit_max, tornblk_check_limit);
TORNBLK_ATTR(atomic_boundary, tornblk_check_limit);
TORNBLK_ATTR(cache_mb, tornblk_check_size);
TORNBLK_ATTR(write_cache, tornblk_check_fixed);
TORNBLK_ATTR(fua, tornblk_check_fixed);
TORNBLK_ATTR(seed, tornblk_check_any);
TORNBLK_ATTR(persist_pct, tornblk_check_pct);
TORNBLK_ATTR(cut_after_writes, tornblk_check_any);
TORNBLK_ATTR(tear_unit, tornblk_check_tear);
TORNBLK_ATTR(cut_rewind_to, tornblk_check_any);
TORNBLK_ATTR(dma_delay_us, tornblk_check_delay);
TORNBLK_ATTR(stable_writes, tornblk_check_fixed);
TORNBLK_ATTR(partitions, tornblk_check_fixed);

static ssize_t tornblk_cut_group_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_tornblk_dev(item)->cut_group);
}

static ssize_t tornblk_cut_group_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	u32 v;
	int ret = kstrtou32(page, 0, &v);

	if (ret) {
		pr_warn("%s: cut_group: not a number\n", dev->name);
		return ret;
	}
	mutex_lock(&tornblk_cfg_lock);
	ret = tornblk_fixed(dev, "cut_group");
	if (!ret)
		ret = tornblk_group_set(dev, v);
	mutex_unlock(&tornblk_cfg_lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(tornblk_, cut_group);

static ssize_t tornblk_hold_flush_show(struct config_item *item, char *page)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool v;

	mutex_lock(&tornblk_cfg_lock);
	tornblk_lock(dev);
	v = dev->hold_flush;
	tornblk_unlock(dev);
	mutex_unlock(&tornblk_cfg_lock);
	return sysfs_emit(page, "%d\n", v);
}

/* 1: park flushes and FUA writes (a cut fails them); 0: run them now. */
static ssize_t tornblk_hold_flush_store(struct config_item *item,
					const char *page, size_t count)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool on;
	int ret = kstrtobool(page, &on);

	if (ret) {
		pr_warn("%s: hold_flush: write 0 or 1\n", dev->name);
		return ret;
	}
	mutex_lock(&tornblk_cfg_lock);
	if (on) {
		tornblk_lock(dev);
		dev->hold_flush = true;
		tornblk_unlock(dev);
	} else {
		tornblk_release_held(dev);
	}
	mutex_unlock(&tornblk_cfg_lock);
	return count;
}
CONFIGFS_ATTR(tornblk_, hold_flush);

static ssize_t tornblk_power_show(struct config_item *item, char *page)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool v;

	mutex_lock(&tornblk_cfg_lock);
	tornblk_lock(dev);
	v = dev->powered;
	tornblk_unlock(dev);
	mutex_unlock(&tornblk_cfg_lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t tornblk_power_store(struct config_item *item, const char *page,
				   size_t count)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool on;
	int ret = kstrtobool(page, &on);

	if (ret) {
		pr_warn("%s: power: write 0 or 1\n", dev->name);
		return ret;
	}
	mutex_lock(&tornblk_cfg_lock);
	ret = tornblk_set_power(dev, on);
	mutex_unlock(&tornblk_cfg_lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(tornblk_, power);

static struct configfs_attribute *tornblk_attrs[] = {
	&tornblk_attr_size_mb,
	&tornblk_attr_logical_block_size,
	&tornblk_attr_physical_block_size,
	&tornblk_attr_pawu,
	&tornblk_attr_atomic_unit_min,
	&tornblk_attr_atomic_unit_max,
	&tornblk_attr_atomic_boundary,
	&tornblk_attr_cache_mb,
	&tornblk_attr_write_cache,
	&tornblk_attr_fua,
	&tornblk_attr_seed,
	&tornblk_attr_persist_pct,
	&tornblk_attr_cut_after_writes,
	&tornblk_attr_tear_unit,
	&tornblk_attr_cut_rewind_to,
	&tornblk_attr_cut_group,
	&tornblk_attr_hold_flush,
	&tornblk_attr_dma_delay_us,
	&tornblk_attr_stable_writes,
	&tornblk_attr_partitions,
	&tornblk_attr_power,
	NULL,
};

static void tornblk_release(struct config_item *item)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);

	if (dev->disk) {
		/* nothing may stay parked or queued while the disk goes away */
		tornblk_release_held(dev);
		flush_workqueue(dev->dma_wq);
		del_gendisk(dev->disk);
		/* captures queued meanwhile end their bios before put_disk */
		destroy_workqueue(dev->dma_wq);
		ida_free(&tornblk_minors,
			 dev->disk->first_minor / TORNBLK_MINORS);
		put_disk(dev->disk);
	} else {
		destroy_workqueue(dev->dma_wq);
	}
	tornblk_debugfs_remove(dev);
	/*
	 * Out of the group before anything is freed: a cut of another member
	 * must not reach this device's cache and stores any more.
	 */
	mutex_lock(&tornblk_cfg_lock);
	tornblk_group_leave(dev);
	mutex_unlock(&tornblk_cfg_lock);
	tornblk_cache_drop(dev);
	tornblk_store_free(&dev->current_data);
	tornblk_store_free(&dev->media);
	kfree(dev);
}

static struct configfs_item_operations tornblk_item_ops = {
	.release	= tornblk_release,
};

static const struct config_item_type tornblk_dev_type = {
	.ct_item_ops	= &tornblk_item_ops,
	.ct_attrs	= tornblk_attrs,
	.ct_owner	= THIS_MODULE,
};

static bool tornblk_name_ok(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len > 16 || !isalpha(name[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!islower(name[i]) && !isdigit(name[i]))
			return false;
	return true;
}

static struct config_group *tornblk_make_group(struct config_group *group,
					       const char *name)
{
	struct tornblk_dev *dev;
	int ret;

	if (!tornblk_name_ok(name)) {
		pr_warn("device name '%s': use 1-16 lower-case letters and digits, starting with a letter\n",
			name);
		return ERR_PTR(-EINVAL);
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	dev->size_mb = 256;
	dev->logical_block_size = SECTOR_SIZE;
	dev->physical_block_size = 4096;
	dev->pawu = 4096;
	dev->cache_mb = 64;
	dev->write_cache = true;
	dev->fua = true;
	dev->persist_pct = 50;
	dev->tear_unit = 8192;		/* a PostgreSQL page */
	bio_list_init(&dev->held);
	dev->dma_wq = alloc_workqueue("tornblk-%s", WQ_UNBOUND | WQ_MEM_RECLAIM, 0, name);
	if (!dev->dma_wq) {
		kfree(dev);
		return ERR_PTR(-ENOMEM);
	}
	INIT_LIST_HEAD(&dev->cache);
	mutex_lock(&tornblk_cfg_lock);
	ret = tornblk_group_set(dev, 0);
	mutex_unlock(&tornblk_cfg_lock);
	if (ret) {
		destroy_workqueue(dev->dma_wq);
		kfree(dev);
		return ERR_PTR(ret);
	}
	tornblk_store_init(&dev->current_data);
	tornblk_store_init(&dev->media);
	tornblk_debugfs_add(dev);
	config_group_init_type_name(&dev->group, name, &tornblk_dev_type);
	return &dev->group;
}

static void tornblk_drop_item(struct config_group *group, struct config_item *item)
{
	config_item_put(item);
}

static struct configfs_group_operations tornblk_group_ops = {
	.make_group	= tornblk_make_group,
	.drop_item	= tornblk_drop_item,
};

static const struct config_item_type tornblk_group_type = {
	.ct_group_ops	= &tornblk_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem tornblk_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "tornblk",
			.ci_type	= &tornblk_group_type,
		},
	},
};

static int __init tornblk_init(void)
{
	int ret;

	tornblk_major = register_blkdev(0, "tornblk");
	if (tornblk_major < 0)
		return tornblk_major;
	tornblk_debugfs_init();
	config_group_init(&tornblk_subsys.su_group);
	mutex_init(&tornblk_subsys.su_mutex);
	ret = configfs_register_subsystem(&tornblk_subsys);
	if (ret) {
		tornblk_debugfs_exit();
		unregister_blkdev(tornblk_major, "tornblk");
	}
	return ret;
}

static void __exit tornblk_exit(void)
{
	configfs_unregister_subsystem(&tornblk_subsys);
	tornblk_debugfs_exit();
	unregister_blkdev(tornblk_major, "tornblk");
	ida_destroy(&tornblk_minors);
}

module_init(tornblk_init);
module_exit(tornblk_exit);
MODULE_DESCRIPTION("Block device that tears unflushed writes at a power cut");
MODULE_LICENSE("GPL");
