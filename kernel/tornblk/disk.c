// SPDX-License-Identifier: GPL-2.0
/*
 * The disk of a device: the configuration is cross-checked when the power
 * first goes on, which creates the gendisk; later power writes cut the
 * power (the whole cut group) or restore it.  The disk goes away only with
 * the device's configfs directory.  Every disk owns a block of minors.
 */
#include "tornblk.h"

#define TORNBLK_MAX_IO_SECTORS	2048	/* 1 MiB per bio */
#define TORNBLK_MINORS		16	/* the device and its first 15 partitions */

static int tornblk_major;
static DEFINE_IDA(tornblk_minors);

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
	else if (dev->chunk_size && dev->chunk_size < dev->logical_block_size)
		why = "chunk_size is smaller than logical_block_size";
	else if (dev->chunk_size && dev->atomic_boundary &&
		 dev->chunk_size % dev->atomic_boundary)
		why = "chunk_size is not a multiple of atomic_boundary";
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
		.chunk_sectors		= dev->chunk_size >> SECTOR_SHIFT,
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

/*
 * Shrink the atomic write unit maximum of a live device, or drop atomic
 * writes (0), as a device does when its namespace is formatted or rescanned;
 * with the configuration lock held.  The queue is frozen meanwhile, so do it
 * while no flush is held (hold_flush), which would keep it from draining.
 */
int tornblk_shrink_atomic(struct tornblk_dev *dev, u32 max)
{
	struct queue_limits lim;
	int ret;

	if (max > dev->atomic_unit_max ||
	    (max && (!is_power_of_2(max) || max < dev->logical_block_size))) {
		pr_warn("%s: atomic_unit_max=%u: on a live device it can only shrink, to 0 or a power of two from logical_block_size to %u\n",
			dev->name, max, dev->atomic_unit_max);
		return -EINVAL;
	}
	lim = queue_limits_start_update(dev->disk->queue);
	lim.atomic_write_hw_max = max;
	lim.atomic_write_hw_unit_max = max;
	lim.atomic_write_hw_unit_min = min(lim.atomic_write_hw_unit_min, max);
	if (!max)
		lim.atomic_write_hw_boundary = 0;
	ret = queue_limits_commit_update_frozen(dev->disk->queue, &lim);
	if (ret)
		return ret;
	tornblk_lock(dev);
	dev->atomic_unit_max = max;
	dev->atomic_unit_min = min(dev->atomic_unit_min, max);
	if (!max)
		dev->atomic_boundary = 0;
	tornblk_unlock(dev);
	pr_info("%s: atomic write unit max is now %u (changed on the live device)\n",
		dev->name, max);
	return 0;
}

/* A write to power; with the configuration lock held. */
int tornblk_set_power(struct tornblk_dev *dev, bool on)
{
	struct bio_list failed = BIO_EMPTY_LIST;

	if (!dev->disk)
		return on ? tornblk_add_disk(dev) : 0;
	tornblk_lock(dev);
	if (on && !dev->powered) {
		dev->powered = true;
		dev->cut_after_writes = 0;	/* a cut armed before is gone */
		dev->cut_after_mixed = false;
	} else if (!on && dev->powered) {
		tornblk_group_cut(dev, "power=0", &failed);
	}
	tornblk_unlock(dev);
	tornblk_end_failed(&failed);
	return 0;
}

/*
 * When the device's configfs item is released: remove the disk, if there
 * is one, and the capture workqueue, which must outlive del_gendisk.
 */
void tornblk_del_disk(struct tornblk_dev *dev)
{
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
}

int tornblk_disk_init(void)
{
	tornblk_major = register_blkdev(0, "tornblk");
	return tornblk_major < 0 ? tornblk_major : 0;
}

void tornblk_disk_exit(void)
{
	unregister_blkdev(tornblk_major, "tornblk");
	ida_destroy(&tornblk_minors);
}
