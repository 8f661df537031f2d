// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of write data at DMA time.  A real device reads a write's data
 * from memory some time after the bio was submitted, while the page cache
 * lets a writer change those pages unless the queue asks for stable writes.
 * With dma_delay_us set, tornblk does the same: a write with data is
 * queued, and a worker copies its segments one at a time, sleeping
 * dma_delay_us before each, then hands the copy to the cache and ends the
 * bio.  A writer that changes a page meanwhile lands in the middle of the
 * capture, and the device holds a mix of old and new data that no single
 * write() produced, exactly as a device with unstable pages can.
 *
 * A cut fails the writes still queued or being captured: their data never
 * fully reached the device.  Flushes are not delayed; they cover only
 * completed writes, and a queued write has not completed.
 */
#include "tornblk.h"

#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

/* Queue a write for capture; with the group lock held. */
void tornblk_dma_queue(struct tornblk_dev *dev, struct bio *bio)
{
	tornblk_assert_locked(dev);
	bio_list_add(&dev->dma_queue, bio);
	dev->stats.dma_writes++;
	queue_work(dev->dma_wq, &dev->dma_work);
}

static u8 *capture(struct bio *bio, u32 delay_us)
{
	u32 off = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int noio;
	u8 *buf = NULL;

	if (!tornblk_should_fail_alloc()) {
		noio = memalloc_noio_save();
		buf = kvmalloc(bio->bi_iter.bi_size, GFP_KERNEL);
		memalloc_noio_restore(noio);
	}
	if (!buf)
		return NULL;
	/* page by page, as a DMA engine walks the scatter list */
	bio_for_each_segment(bv, bio, iter) {
		fsleep(delay_us);
		memcpy_from_bvec(buf + off, &bv);
		off += bv.bv_len;
	}
	return buf;
}

void tornblk_dma_work(struct work_struct *work)
{
	struct tornblk_dev *dev = container_of(work, struct tornblk_dev, dma_work);
	struct bio_list failed = BIO_EMPTY_LIST;
	blk_status_t status;
	struct bio *bio;
	u32 delay;
	u64 cuts;
	u8 *buf;

	for (;;) {
		tornblk_lock(dev);
		bio = bio_list_pop(&dev->dma_queue);
		cuts = dev->stats.cuts;
		delay = dev->dma_delay_us;
		tornblk_unlock(dev);
		if (!bio)
			return;
		buf = capture(bio, delay);
		tornblk_lock(dev);
		if (dev->stats.cuts != cuts || !dev->powered) {
			/* the power failed during the capture */
			dev->stats.io_errors++;
			kvfree(buf);
			status = BLK_STS_IOERR;
		} else if (!buf) {
			dev->stats.alloc_failures++;
			status = BLK_STS_RESOURCE;
		} else {
			status = tornblk_write_captured(dev, bio, buf, &failed);
		}
		tornblk_unlock(dev);
		bio->bi_status = status;
		bio_endio(bio);
		tornblk_end_failed(&failed);
	}
}
