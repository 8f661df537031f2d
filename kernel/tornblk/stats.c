// SPDX-License-Identifier: GPL-2.0
/*
 * Counters and write size/alignment histograms, in debugfs under
 * tornblk/<device>/{stats,hist}.
 */
#include "tornblk.h"

#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/seq_file.h>

static struct dentry *tornblk_debugfs_root;

/* Pages (store.c) and cache records (cache.c) of all devices together. */
atomic64_t tornblk_live_pages = ATOMIC64_INIT(0);
atomic64_t tornblk_live_recs = ATOMIC64_INIT(0);

/*
 * tornblk/fail_allocs: the next N allocations of the I/O path fail, so
 * tests can check that a write without memory fails whole.
 */
atomic_t tornblk_fail_allocs = ATOMIC_INIT(0);

bool tornblk_should_fail_alloc(void)
{
	return atomic_add_unless(&tornblk_fail_allocs, -1, 0);
}

static unsigned int bucket(u64 bytes, unsigned int nr)
{
	unsigned int b;

	if (bytes < SECTOR_SIZE)
		return 0;
	b = ilog2(bytes >> SECTOR_SHIFT);
	return min(b, nr - 1);
}

static void hist_add(struct tornblk_hist *h, sector_t sector, u32 len)
{
	u64 pos = (u64)sector << SECTOR_SHIFT;
	/* the largest power of two dividing the offset; offset 0 is best */
	u64 align = pos ? pos & -pos : U64_MAX;

	h->size[bucket(len, TORNBLK_SIZE_BUCKETS)]++;
	h->align[bucket(align, TORNBLK_ALIGN_BUCKETS)]++;
}

void tornblk_stats_write(struct tornblk_dev *dev, sector_t sector, u32 len,
			 blk_opf_t opf)
{
	struct tornblk_stats *st = &dev->stats;

	st->writes++;
	st->bytes_written += len;
	st->meta_writes += !!(opf & REQ_META);
	st->fua_writes += !!(opf & REQ_FUA);
	hist_add(&st->all, sector, len);
	if (opf & REQ_ATOMIC) {
		st->atomic_writes++;
		hist_add(&st->atomic, sector, len);
		if (opf & REQ_META)
			st->atomic_meta_writes++;
		else
			hist_add(&st->atomic_data, sector, len);
	}
}

static int stats_show(struct seq_file *m, void *v)
{
	struct tornblk_dev *dev = m->private;
	struct tornblk_stats *st = &dev->stats;

	mutex_lock(&tornblk_cfg_lock);
	tornblk_lock(dev);
	seq_printf(m, "powered %d\n", dev->powered);
	seq_printf(m, "reads %llu\nbytes_read %llu\n", st->reads, st->bytes_read);
	seq_printf(m, "writes %llu\natomic_writes %llu\nbytes_written %llu\n",
		   st->writes, st->atomic_writes, st->bytes_written);
	seq_printf(m, "meta_writes %llu\natomic_meta_writes %llu\n",
		   st->meta_writes, st->atomic_meta_writes);
	seq_printf(m, "flushes %llu\nfua_writes %llu\ndestaged %llu\n",
		   st->flushes, st->fua_writes, st->destaged);
	seq_printf(m, "io_errors %llu\ncuts %llu\n", st->io_errors, st->cuts);
	seq_printf(m, "cache_bytes %llu\n", dev->cache_bytes);
	seq_printf(m, "media_pages %llu\ncurrent_pages %llu\n",
		   dev->media.nr_pages, dev->current_data.nr_pages);
	seq_printf(m, "cut_writes %llu\ncut_writes_torn %llu\n",
		   st->cut_writes, st->cut_writes_torn);
	seq_printf(m, "cut_units_persisted %llu\ncut_units_dropped %llu\n",
		   st->cut_units_persisted, st->cut_units_dropped);
	seq_printf(m, "cut_atomic_persisted %llu\ncut_atomic_dropped %llu\n",
		   st->cut_atomic_persisted, st->cut_atomic_dropped);
	seq_printf(m, "cut_rewound %llu\ncut_pieces %llu\n",
		   st->cut_rewound, st->cut_pieces);
	seq_printf(m, "cut_pieces_partial %llu\ncut_pieces_torn %llu\n",
		   st->cut_pieces_partial, st->cut_pieces_torn);
	seq_printf(m, "cut_pieces_torn_meta %llu\n", st->cut_pieces_torn_meta);
	seq_printf(m, "misaligned %llu\nalloc_failures %llu\nheld %llu\n",
		   st->misaligned, st->alloc_failures, st->held);
	seq_printf(m, "held_now %u\n", bio_list_size(&dev->held));
	seq_printf(m, "last_flush_write %llu\n", st->last_flush_write);
	seq_printf(m, "dma_writes %llu\ndma_inflight %u\n", st->dma_writes,
		   dev->dma_inflight);
	seq_printf(m, "dma_pages_changed %llu\n", st->dma_pages_changed);
	seq_printf(m, "dma_pieces_mixed %llu\ndma_uncounted %llu\n",
		   st->dma_pieces_mixed, st->dma_uncounted);
	tornblk_unlock(dev);
	mutex_unlock(&tornblk_cfg_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void hist_show_one(struct seq_file *m, const char *what,
			  const u64 *counts, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (counts[i])
			seq_printf(m, "%s %u%s %llu\n", what, SECTOR_SIZE << i,
				   i == nr - 1 ? "+" : "", counts[i]);
}

/* Lines "KIND BYTES COUNT"; the last bucket of each kind is open ended. */
static int hist_show(struct seq_file *m, void *v)
{
	struct tornblk_dev *dev = m->private;
	struct tornblk_stats *st = &dev->stats;

	mutex_lock(&tornblk_cfg_lock);
	tornblk_lock(dev);
	hist_show_one(m, "write_size", st->all.size, TORNBLK_SIZE_BUCKETS);
	hist_show_one(m, "write_align", st->all.align, TORNBLK_ALIGN_BUCKETS);
	hist_show_one(m, "atomic_size", st->atomic.size, TORNBLK_SIZE_BUCKETS);
	hist_show_one(m, "atomic_align", st->atomic.align, TORNBLK_ALIGN_BUCKETS);
	hist_show_one(m, "atomic_data_size", st->atomic_data.size,
		      TORNBLK_SIZE_BUCKETS);
	hist_show_one(m, "atomic_data_align", st->atomic_data.align,
		      TORNBLK_ALIGN_BUCKETS);
	tornblk_unlock(dev);
	mutex_unlock(&tornblk_cfg_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

/* tornblk/live: pages and cache records held by all devices together. */
static int live_show(struct seq_file *m, void *v)
{
	seq_printf(m, "pages %lld\nrecords %lld\n",
		   atomic64_read(&tornblk_live_pages),
		   atomic64_read(&tornblk_live_recs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(live);

void tornblk_debugfs_add(struct tornblk_dev *dev)
{
	dev->debugfs = debugfs_create_dir(dev->name, tornblk_debugfs_root);
	debugfs_create_file("stats", 0444, dev->debugfs, dev, &stats_fops);
	debugfs_create_file("hist", 0444, dev->debugfs, dev, &hist_fops);
}

void tornblk_debugfs_remove(struct tornblk_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

int tornblk_debugfs_init(void)
{
	tornblk_debugfs_root = debugfs_create_dir("tornblk", NULL);
	debugfs_create_file("live", 0444, tornblk_debugfs_root, NULL, &live_fops);
	debugfs_create_atomic_t("fail_allocs", 0644, tornblk_debugfs_root,
				&tornblk_fail_allocs);
	return 0;
}

void tornblk_debugfs_exit(void)
{
	debugfs_remove_recursive(tornblk_debugfs_root);
}
