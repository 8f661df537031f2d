// SPDX-License-Identifier: GPL-2.0
/*
 * The volatile write cache.  Every write lands in current_data at once, so
 * reads see the newest data.  A write that is not yet durable is also kept
 * as a record; a flush (or destaging when the cache is full) copies records
 * to the media in order.  A power cut persists each record piece by piece,
 * one seeded coin per power-fail atomic unit, or whole-or-nothing for
 * REQ_ATOMIC writes, and then rolls current_data back to the media.
 *
 * Memory is taken before anything changes: a write that cannot get it
 * fails whole, so reads never show data that a cut could not persist, and
 * flushes and cuts cannot fail.
 *
 * All functions here run with the group lock held.
 */
#include "tornblk.h"

#include <linux/slab.h>

static void rec_free(struct tornblk_dev *dev, struct tornblk_rec *rec)
{
	list_del(&rec->list);
	dev->cache_bytes -= rec->len;
	kvfree(rec->data);
	kfree(rec);
	atomic64_dec(&tornblk_live_recs);
}

static void rec_destage(struct tornblk_dev *dev, struct tornblk_rec *rec)
{
	tornblk_store_write(&dev->media, rec->sector, rec->data, rec->len);
	rec_free(dev, rec);
}

void tornblk_cache_flush(struct tornblk_dev *dev)
{
	struct tornblk_rec *rec, *next;

	tornblk_assert_locked(dev);
	list_for_each_entry_safe(rec, next, &dev->cache, list)
		rec_destage(dev, rec);
	dev->stats.last_flush_write = dev->stats.writes;
}

/*
 * Takes ownership of @data (kvmalloc'ed): a cached write keeps it as its
 * record's copy, a durable one frees it.
 */
int tornblk_cache_write(struct tornblk_dev *dev, sector_t sector,
			u8 *data, u32 len, blk_opf_t opf)
{
	struct tornblk_rec *rec = NULL;
	int ret;

	tornblk_assert_locked(dev);
	ret = tornblk_store_prepare(&dev->current_data, sector, len);
	if (!ret)
		ret = tornblk_store_prepare(&dev->media, sector, len);
	if (!ret && dev->write_cache && !(opf & REQ_FUA)) {
		rec = tornblk_should_fail_alloc() ? NULL :
			kzalloc(sizeof(*rec), GFP_NOIO);
		if (!rec)
			ret = -ENOMEM;
	}
	if (ret) {
		dev->stats.alloc_failures++;
		kvfree(data);
		return ret;
	}

	tornblk_store_write(&dev->current_data, sector, data, len);
	if (!rec) {
		/*
		 * A durable write: persist everything cached before it too.
		 * That is stronger than FUA requires, which real devices may
		 * do, and keeps older cached data from overwriting it later.
		 */
		tornblk_cache_flush(dev);
		tornblk_store_write(&dev->media, sector, data, len);
		dev->stats.last_flush_write++;	/* this write is durable too */
		kvfree(data);
		return 0;
	}

	atomic64_inc(&tornblk_live_recs);
	rec->data = data;
	rec->sector = sector;
	rec->len = len;
	rec->atomic = opf & REQ_ATOMIC;
	rec->meta = opf & REQ_META;
	rec->seq = ++dev->seq;
	rec->nr = dev->stats.writes + 1;
	list_add_tail(&rec->list, &dev->cache);
	dev->cache_bytes += len;

	/* A full cache writes back its oldest data, as a real one does. */
	while (dev->cache_bytes > ((u64)dev->cache_mb << 20)) {
		rec = list_first_entry(&dev->cache, struct tornblk_rec, list);
		rec_destage(dev, rec);
		dev->stats.destaged++;
	}
	return 0;
}

/* A reproducible coin for one piece of one cached write at one cut. */
static bool coin(struct tornblk_dev *dev, u64 seq, u64 unit)
{
	u64 z = dev->seed ^ (dev->stats.cuts * 0x9e3779b97f4a7c15ULL);

	z += seq * 0xbf58476d1ce4e5b9ULL + unit * 0x94d049bb133111ebULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (z % 100) < dev->persist_pct;
}

/* What one tear_unit piece of a record did at the cut. */
struct piece {
	bool kept, dropped;		/* some of it persisted / was lost */
	bool kept_new, dropped_new;	/* ... and that part changed the media */
};

static void piece_done(struct tornblk_stats *st, struct piece *p, bool meta)
{
	bool torn = p->kept_new && p->dropped_new;

	st->cut_pieces++;
	st->cut_pieces_partial += p->kept && p->dropped;
	st->cut_pieces_torn += torn;
	st->cut_pieces_torn_meta += torn && meta;
	memset(p, 0, sizeof(*p));
}

/*
 * Persist the parts of @rec that win their coin; true if it was torn.  The
 * record is walked in segments that lie in one pawu unit and one tear_unit
 * piece, so that the piece counts see exactly what the coins did.  A piece
 * is torn when both its persisted and its lost part differ from what the
 * media held: only then can a reader see a mix of old and new data.
 */
static bool cut_rec(struct tornblk_dev *dev, struct tornblk_rec *rec)
{
	struct tornblk_stats *st = &dev->stats;
	u64 start = (u64)rec->sector << SECTOR_SHIFT, end = start + rec->len;
	u64 step = min(dev->pawu, dev->tear_unit), pos = start;
	u64 kept = 0, dropped = 0, unit, piece_idx;
	struct piece p = {};
	bool keep = true;

	if (rec->atomic) {
		keep = coin(dev, rec->seq, 0);
		if (keep) {
			st->cut_atomic_persisted++;
			tornblk_store_write(&dev->media, rec->sector, rec->data,
					    rec->len);
		} else {
			st->cut_atomic_dropped++;
		}
		st->cut_pieces += DIV_ROUND_UP_ULL(end, dev->tear_unit) -
				  div64_u64(start, dev->tear_unit);
		return false;
	}
	unit = U64_MAX;
	piece_idx = div64_u64(start, dev->tear_unit);
	while (pos < end) {
		u64 next = min(end, round_down(pos, step) + step);
		sector_t sec = pos >> SECTOR_SHIFT;
		const u8 *src = rec->data + (pos - start);
		bool changed;

		if (div64_u64(pos, dev->tear_unit) != piece_idx) {
			piece_done(st, &p, rec->meta);
			piece_idx = div64_u64(pos, dev->tear_unit);
		}
		if (div64_u64(pos, dev->pawu) != unit) {
			unit = div64_u64(pos, dev->pawu);
			keep = coin(dev, rec->seq, unit);
			if (keep)
				kept++;
			else
				dropped++;
		}
		changed = tornblk_store_differs(&dev->media, sec, src, next - pos);
		if (keep) {
			p.kept = true;
			p.kept_new |= changed;
			tornblk_store_write(&dev->media, sec, src, next - pos);
		} else {
			p.dropped = true;
			p.dropped_new |= changed;
		}
		pos = next;
	}
	piece_done(st, &p, rec->meta);
	st->cut_units_persisted += kept;
	st->cut_units_dropped += dropped;
	return kept && dropped;
}

void tornblk_power_cut(struct tornblk_dev *dev)
{
	struct tornblk_stats *st = &dev->stats;
	struct tornblk_rec *rec, *next;

	tornblk_assert_locked(dev);
	dev->powered = false;
	dev->cut_after_writes = 0;
	st->cut_writes = 0;
	st->cut_units_persisted = 0;
	st->cut_units_dropped = 0;
	st->cut_writes_torn = 0;
	st->cut_atomic_persisted = 0;
	st->cut_atomic_dropped = 0;
	st->cut_rewound = 0;
	st->cut_pieces = 0;
	st->cut_pieces_partial = 0;
	st->cut_pieces_torn = 0;
	st->cut_pieces_torn_meta = 0;
	list_for_each_entry(rec, &dev->cache, list) {
		/* as if the power had failed right after write cut_rewind_to */
		if (dev->cut_rewind_to && rec->nr > dev->cut_rewind_to) {
			st->cut_rewound++;
			continue;
		}
		st->cut_writes++;
		st->cut_writes_torn += cut_rec(dev, rec);
	}
	/* What reads will see from now on: exactly the media. */
	list_for_each_entry_safe(rec, next, &dev->cache, list) {
		tornblk_store_copy(&dev->current_data, &dev->media, rec->sector,
				   rec->len);
		rec_free(dev, rec);
	}
	dev->cut_rewind_to = 0;
	st->last_flush_write = st->writes;	/* nothing is unflushed now */
	st->cuts++;
}

void tornblk_cache_drop(struct tornblk_dev *dev)
{
	struct tornblk_rec *rec, *next;

	list_for_each_entry_safe(rec, next, &dev->cache, list)
		rec_free(dev, rec);
}
