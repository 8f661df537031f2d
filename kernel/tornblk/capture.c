// SPDX-License-Identifier: GPL-2.0
/*
 * How a write's data reaches the device: copied when the bio is submitted
 * (dma_delay_us 0, tornblk_write_copy()), or captured at DMA time.
 *
 * Capture at DMA time.  A real device reads a write's data from memory
 * some time after the bio was submitted, while the page cache lets a
 * writer change those pages unless the queue asks for stable writes.
 * With dma_delay_us set, tornblk does the same: a write with data is
 * handed to a worker that copies its segments one at a time, sleeping
 * dma_delay_us between two, then hands the copy to the cache and ends the
 * bio; the captures of many writes run at once.  A writer that changes a
 * page meanwhile lands in the middle of the capture, and the device holds a
 * mix of old and new data that no single write() produced, exactly as a
 * device with unstable pages can.
 *
 * A cut fails the writes still queued or being captured: their data never
 * fully reached the device.  Flushes are not delayed; they cover only
 * completed writes, and a queued write has not completed.
 */
#include "tornblk.h"

#include <linux/delay.h>
#include <linux/slab.h>

/* One write being captured. */
struct tornblk_dma {
	struct work_struct work;
	struct tornblk_dev *dev;
	struct bio *bio;
	u64 cuts;	/* the device's cut count at submission */
	u32 delay_us;
};

static bool tornblk_cut_counts(struct tornblk_dev *dev, struct bio *bio,
			       u32 len)
{
	if (!dev->cut_min_bytes)
		return true;
	return len >= dev->cut_min_bytes &&
	       !(bio->bi_opf & (REQ_FUA | REQ_META));
}

/* Store a write whose data was copied to @buf (which the cache takes). */
static blk_status_t tornblk_write_captured(struct tornblk_dev *dev,
					   struct bio *bio, u8 *buf,
					   struct bio_list *failed)
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
	 * that a test can land it among the writes it cares about.  With
	 * cut_min_bytes, only file data that stays in the cache counts: a
	 * write of at least that size, neither FUA nor the filesystem's own
	 * (REQ_META).
	 */
	if (dev->cut_after_writes && tornblk_cut_counts(dev, bio, len) &&
	    !--dev->cut_after_writes)
		tornblk_group_cut(dev, "armed write count reached", failed);
	return BLK_STS_OK;
}

/* A write whose data is copied now, at submission; with the group lock. */
blk_status_t tornblk_write_copy(struct tornblk_dev *dev, struct bio *bio,
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

static u8 *capture(struct bio *bio, u32 delay_us)
{
	u8 *buf = tornblk_buf_alloc(bio->bi_iter.bi_size);
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off = 0;

	if (!buf)
		return NULL;
	/* page by page, as a DMA engine walks the scatter list */
	bio_for_each_segment(bv, bio, iter) {
		if (off)
			fsleep(delay_us);
		memcpy_from_bvec(buf + off, &bv);
		off += bv.bv_len;
	}
	return buf;
}

/*
 * The pages of @bio whose data no longer match what capture() took into
 * @buf: a writer changed them while the device was reading the write (the
 * writeback race; never with stable writes).  A page changed before its
 * own capture is not seen, and is harmless: the device took the new data.
 * *@mixed counts the tear_unit pieces (a database page) holding both such a
 * page and one whose copy matches the page as it is now: taken after the
 * change, or left alone by it.  Only such a piece's copy can mix two
 * versions (where the change did touch the second page): an upper bound on
 * the pieces the race tore, far closer than the changed pages.
 */
static u64 changed_pages(struct tornblk_dev *dev, struct bio *bio,
			 const u8 *buf, u64 *mixed)
{
	u64 pos = (u64)bio->bi_iter.bi_sector << SECTOR_SHIFT;
	u32 unit = READ_ONCE(dev->tear_unit);
	u64 piece = U64_MAX, n = 0;
	bool changed = false, same = false;
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off = 0;

	*mixed = 0;
	bio_for_each_segment(bv, bio, iter) {
		void *p = bvec_kmap_local(&bv);
		bool c = memcmp(buf + off, p, bv.bv_len) != 0;

		kunmap_local(p);
		if (div64_u64(pos, unit) != piece) {
			*mixed += changed && same;
			changed = false;
			same = false;
			piece = div64_u64(pos, unit);
		}
		n += c;
		changed |= c;
		same |= !c;
		off += bv.bv_len;
		pos += bv.bv_len;
	}
	*mixed += changed && same;
	return n;
}

static void tornblk_dma_work(struct work_struct *work)
{
	struct tornblk_dma *d = container_of(work, struct tornblk_dma, work);
	struct tornblk_dev *dev = d->dev;
	struct bio_list failed = BIO_EMPTY_LIST;
	struct bio *bio = d->bio;
	blk_status_t status;
	u64 changed = 0, mixed = 0;
	u8 *buf;

	buf = capture(bio, d->delay_us);
	if (buf)
		changed = changed_pages(dev, bio, buf, &mixed);
	tornblk_lock(dev);
	dev->stats.dma_pages_changed += changed;
	dev->stats.dma_pieces_mixed += mixed;
	if (dev->stats.cuts != d->cuts || !dev->powered) {
		/* the power failed before the capture ended */
		dev->stats.io_errors++;
		kvfree(buf);
		status = BLK_STS_IOERR;
	} else if (!buf) {
		dev->stats.alloc_failures++;
		status = BLK_STS_RESOURCE;
	} else {
		status = tornblk_write_captured(dev, bio, buf, &failed);
	}
	dev->dma_inflight--;
	tornblk_unlock(dev);
	kfree(d);
	bio->bi_status = status;
	bio_endio(bio);
	tornblk_end_failed(&failed);
}

/*
 * Start the capture of a write; with the group lock held.  Captures run in
 * parallel, as a device has many DMA transfers in flight.  Returns false
 * when there is no memory for it: the caller then copies at once.
 */
bool tornblk_dma_queue(struct tornblk_dev *dev, struct bio *bio)
{
	struct tornblk_dma *d;

	tornblk_assert_locked(dev);
	d = tornblk_should_fail_alloc() ? NULL : kmalloc(sizeof(*d), GFP_NOIO);
	if (!d)
		return false;
	INIT_WORK(&d->work, tornblk_dma_work);
	d->dev = dev;
	d->bio = bio;
	d->cuts = dev->stats.cuts;
	d->delay_us = dev->dma_delay_us;
	dev->stats.dma_writes++;
	dev->dma_inflight++;
	queue_work(dev->dma_wq, &d->work);
	return true;
}
