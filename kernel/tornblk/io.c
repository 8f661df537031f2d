// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O path: bios enter through tornblk_submit_bio(), which takes the
 * group lock.  Misaligned bios fail, reads come from current_data,
 * flushes and FUA writes may be parked while hold_flush is set, and writes
 * go to capture.c, which copies their data now or at DMA time.  A bio
 * that finds the power off fails.
 */
#include "tornblk.h"

#include <linux/highmem.h>
#include <linux/module.h>

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
		return tornblk_write_copy(dev, bio, failed);
	default:
		return BLK_STS_NOTSUPP;
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
void tornblk_release_held(struct tornblk_dev *dev)
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

const struct block_device_operations tornblk_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= tornblk_submit_bio,
};

