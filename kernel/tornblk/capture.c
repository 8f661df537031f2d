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

/*
 * Take @len bytes of @bio from @start (a piece) into @dst: what the pages
 * hold at this moment.
 */
static void snapshot_piece(struct bio *bio, struct bvec_iter start, u8 *dst,
			   u32 len)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off = 0;

	__bio_for_each_segment(bv, bio, iter, start) {
		if (off >= len)
			break;
		memcpy_from_bvec(dst + off, &bv);
		off += bv.bv_len;
	}
}

/*
 * Read @bio's data into a new buffer, page by page, @delay_us apart, as a
 * DMA engine walks the scatter list.  *@snap, when there is memory for it,
 * holds each tear_unit piece (of @unit bytes) as it was when the reading
 * of its first page began: changed_pages() tells from it which pages of a
 * piece changed after the piece began to be read and before their own
 * turn came.
 */
static u8 *capture(struct bio *bio, u32 delay_us, u32 unit, u8 **snap)
{
	u8 *buf = tornblk_buf_alloc(bio->bi_iter.bi_size);
	u64 pos = (u64)bio->bi_iter.bi_sector << SECTOR_SHIFT;
	u64 piece = U64_MAX;
	struct bvec_iter iter;
	unsigned int noio;
	struct bio_vec bv;
	u32 off = 0;

	*snap = NULL;
	if (!buf)
		return NULL;
	/*
	 * The snapshot serves the counts alone, so it is not one of the
	 * allocations tornblk_buf_alloc() fails on purpose; without memory
	 * for it the write's pieces go uncounted (dma_uncounted).
	 */
	noio = memalloc_noio_save();
	*snap = kvmalloc(bio->bi_iter.bi_size, GFP_KERNEL | __GFP_NOWARN);
	memalloc_noio_restore(noio);
	bio_for_each_segment(bv, bio, iter) {
		if (off)
			fsleep(delay_us);
		if (*snap && div64_u64(pos, unit) != piece) {
			piece = div64_u64(pos, unit);
			snapshot_piece(bio, iter, *snap + off,
				       min_t(u64, (piece + 1) * unit - pos,
					     bio->bi_iter.bi_size - off));
		}
		memcpy_from_bvec(buf + off, &bv);
		off += bv.bv_len;
		pos += bv.bv_len;
	}
	return buf;
}

/* One tear_unit piece of a captured write, segment by segment. */
struct tornblk_dma_piece {
	u64 idx;		/* which piece */
	u32 late, early;	/* segments changed after / before their capture */
	u32 late_seg, early_seg;	/* one of each, by segment number */
};

/*
 * A piece whose copy mixes two versions: one of its segments was read
 * before a change (its copy is older than the memory now) and another
 * after one (its copy is newer than the memory was when the piece began
 * to be read).
 */
static bool piece_mixed(const struct tornblk_dma_piece *p)
{
	return p->late && p->early &&
	       !(p->late == 1 && p->early == 1 && p->late_seg == p->early_seg);
}

/*
 * The pages of @bio whose data no longer match what capture() took into
 * @buf: a writer changed them while the device was reading the write (the
 * writeback race; never with stable writes).  A page changed before its
 * own capture is not counted, and is harmless by itself: the device took
 * the new data.  *@mixed counts the tear_unit pieces (a database page)
 * whose copy holds a page read before a change and another read after it
 * (from @snap, each piece as it was when its first page was read; @unit
 * bytes a piece): copies of no version the piece ever had, the pages the
 * race tore.  (Two changes, one before the piece's reading began and one
 * after it ended, leave a whole older copy: not counted.)
 */
static u64 changed_pages(struct bio *bio, u32 unit, const u8 *buf,
			 const u8 *snap, u64 *mixed)
{
	u64 pos = (u64)bio->bi_iter.bi_sector << SECTOR_SHIFT;
	struct tornblk_dma_piece p = { .idx = U64_MAX };
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off = 0, seg = 0;
	u64 n = 0;

	*mixed = 0;
	bio_for_each_segment(bv, bio, iter) {
		void *v = bvec_kmap_local(&bv);
		bool late = memcmp(buf + off, v, bv.bv_len) != 0;
		bool early = snap && memcmp(snap + off, buf + off, bv.bv_len) != 0;
		u64 idx = div64_u64(pos, unit);

		kunmap_local(v);
		if (idx != p.idx) {
			*mixed += piece_mixed(&p);
			p = (struct tornblk_dma_piece){ .idx = idx };
		}
		if (late) {
			p.late++;
			p.late_seg = seg;
		}
		if (early) {
			p.early++;
			p.early_seg = seg;
		}
		n += late;
		off += bv.bv_len;
		pos += bv.bv_len;
		seg++;
	}
	*mixed += piece_mixed(&p);
	return n;
}

static void tornblk_dma_work(struct work_struct *work)
{
	struct tornblk_dma *d = container_of(work, struct tornblk_dma, work);
	struct tornblk_dev *dev = d->dev;
	struct bio_list failed = BIO_EMPTY_LIST;
	struct bio *bio = d->bio;
	blk_status_t status;
	u32 unit = READ_ONCE(dev->tear_unit);
	u64 changed = 0, mixed = 0;
	u8 *buf, *snap;

	buf = capture(bio, d->delay_us, unit, &snap);
	if (buf)
		changed = changed_pages(bio, unit, buf, snap, &mixed);
	kvfree(snap);
	tornblk_lock(dev);
	dev->stats.dma_pages_changed += changed;
	dev->stats.dma_pieces_mixed += mixed;
	dev->stats.dma_uncounted += buf && !snap;
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
		/*
		 * Armed on the race: the first write the device copied from
		 * two versions becomes durable, with everything cached before
		 * it, as a cache flush right after it would make it, and the
		 * power fails: the media keeps the torn copy, and the write
		 * that would repair it never comes.
		 */
		if (status == BLK_STS_OK && mixed && dev->cut_after_mixed &&
		    dev->powered) {
			pr_info("%s: the write of %u bytes at sector %llu was copied from two versions (%llu pieces)\n",
				dev->name, bio->bi_iter.bi_size,
				(u64)bio->bi_iter.bi_sector, mixed);
			tornblk_cache_flush(dev);
			tornblk_group_cut(dev, "a write copied from two versions",
					  &failed);
		}
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
