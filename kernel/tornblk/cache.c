// SPDX-License-Identifier: GPL-2.0
/*
 * The volatile write cache.  Every write lands in current_data at once, so
 * reads see the newest data.  A write that is not yet durable is also kept
 * as a record; a flush (or destaging when the cache is full) copies records
 * to the media in order.  A power cut persists each record piece by piece,
 * one seeded coin per power-fail atomic unit, or whole-or-nothing for
 * REQ_ATOMIC writes, and then rolls current_data back to the media.
 *
 * All functions here run with dev->lock held.
 */
#include <linux/slab.h>

#include "tornblk.h"

atomic64_t tornblk_live_recs = ATOMIC64_INIT(0);

static void rec_free(struct tornblk_dev *dev, struct tornblk_rec *rec)
{
	list_del(&rec->list);
	dev->cache_bytes -= rec->len;
	kvfree(rec->data);
	kfree(rec);
	atomic64_dec(&tornblk_live_recs);
}

static int rec_destage(struct tornblk_dev *dev, struct tornblk_rec *rec)
{
	int ret = tornblk_store_write(&dev->media, rec->sector, rec->data, rec->len);

	if (!ret)
		rec_free(dev, rec);
	return ret;
}

int tornblk_cache_flush(struct tornblk_dev *dev)
{
	struct tornblk_rec *rec, *next;
	int ret;

	lockdep_assert_held(&dev->lock);
	list_for_each_entry_safe(rec, next, &dev->cache, list) {
		ret = rec_destage(dev, rec);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Takes ownership of @data (kvmalloc'ed): a cached write keeps it as its
 * record's copy, a durable one frees it.
 */
int tornblk_cache_write(struct tornblk_dev *dev, sector_t sector,
			u8 *data, u32 len, bool atomic, bool fua)
{
	struct tornblk_rec *rec;
	int ret;

	lockdep_assert_held(&dev->lock);
	ret = tornblk_store_write(&dev->current_data, sector, data, len);
	if (ret)
		goto out_free;
	if (!dev->write_cache || fua) {
		/*
		 * A durable write: persist everything cached before it too.
		 * That is stronger than FUA requires, which real devices may
		 * do, and keeps older cached data from overwriting it later.
		 */
		ret = tornblk_cache_flush(dev);
		if (!ret)
			ret = tornblk_store_write(&dev->media, sector, data, len);
		goto out_free;
	}

	rec = kzalloc(sizeof(*rec), GFP_NOIO);
	if (!rec) {
		ret = -ENOMEM;
		goto out_free;
	}
	atomic64_inc(&tornblk_live_recs);
	rec->data = data;
	rec->sector = sector;
	rec->len = len;
	rec->atomic = atomic;
	rec->seq = ++dev->seq;
	list_add_tail(&rec->list, &dev->cache);
	dev->cache_bytes += len;

	/* A full cache writes back its oldest data, as a real one does. */
	while (dev->cache_bytes > ((u64)dev->cache_mb << 20)) {
		rec = list_first_entry(&dev->cache, struct tornblk_rec, list);
		ret = rec_destage(dev, rec);
		if (ret)
			return ret;
		dev->stats.destaged++;
	}
	return 0;

out_free:
	kvfree(data);
	return ret;
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

/* Persist the pieces of @rec that win their coin; true if it was torn. */
static int cut_rec(struct tornblk_dev *dev, struct tornblk_rec *rec, bool *torn)
{
	struct tornblk_stats *st = &dev->stats;
	u64 start = (u64)rec->sector << SECTOR_SHIFT, end = start + rec->len;
	u64 pos = start, kept = 0, dropped = 0;
	int ret;

	*torn = false;
	if (rec->atomic) {
		if (!coin(dev, rec->seq, 0)) {
			st->cut_atomic_dropped++;
			return 0;
		}
		st->cut_atomic_persisted++;
		return tornblk_store_write(&dev->media, rec->sector, rec->data, rec->len);
	}
	while (pos < end) {
		u64 unit = div64_u64(pos, dev->pawu);
		u64 next = min(end, (unit + 1) * dev->pawu);

		if (coin(dev, rec->seq, unit)) {
			ret = tornblk_store_write(&dev->media, pos >> SECTOR_SHIFT,
						  rec->data + (pos - start), next - pos);
			if (ret)
				return ret;
			kept++;
		} else {
			dropped++;
		}
		pos = next;
	}
	st->cut_units_persisted += kept;
	st->cut_units_dropped += dropped;
	*torn = kept && dropped;
	return 0;
}

int tornblk_power_cut(struct tornblk_dev *dev)
{
	struct tornblk_stats *st = &dev->stats;
	struct tornblk_rec *rec, *next;
	bool torn;
	int ret = 0;

	lockdep_assert_held(&dev->lock);
	dev->powered = false;
	st->cut_writes = 0;
	st->cut_units_persisted = 0;
	st->cut_units_dropped = 0;
	st->cut_writes_torn = 0;
	st->cut_atomic_persisted = 0;
	st->cut_atomic_dropped = 0;
	list_for_each_entry(rec, &dev->cache, list) {
		ret = cut_rec(dev, rec, &torn);
		if (ret)
			break;
		st->cut_writes++;
		st->cut_writes_torn += torn;
	}
	/* What reads will see from now on: exactly the media. */
	list_for_each_entry_safe(rec, next, &dev->cache, list) {
		if (!ret)
			ret = tornblk_store_copy(&dev->current_data, &dev->media,
						 rec->sector, rec->len);
		rec_free(dev, rec);
	}
	st->cuts++;
	return ret;
}

void tornblk_cache_drop(struct tornblk_dev *dev)
{
	struct tornblk_rec *rec, *next;

	list_for_each_entry_safe(rec, next, &dev->cache, list)
		rec_free(dev, rec);
}
