// SPDX-License-Identifier: GPL-2.0
/*
 * The page store behind tornblk: pages in an xarray indexed by page number,
 * allocated on first write (the brd model).
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "tornblk.h"

atomic64_t tornblk_live_pages = ATOMIC64_INIT(0);

void tornblk_store_init(struct tornblk_store *s)
{
	xa_init(&s->pages);
	s->nr_pages = 0;
}

void tornblk_store_free(struct tornblk_store *s)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&s->pages, idx, page)
		__free_page(page);
	atomic64_sub(s->nr_pages, &tornblk_live_pages);
	xa_destroy(&s->pages);
	s->nr_pages = 0;
}

static struct page *store_page(struct tornblk_store *s, pgoff_t idx, bool alloc)
{
	struct page *page = xa_load(&s->pages, idx), *old;

	if (page || !alloc)
		return page;
	page = alloc_page(GFP_NOIO | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_store(&s->pages, idx, page, GFP_NOIO);
	if (xa_is_err(old)) {
		__free_page(page);
		return NULL;
	}
	s->nr_pages++;
	atomic64_inc(&tornblk_live_pages);
	return page;
}

int tornblk_store_write(struct tornblk_store *s, sector_t sector,
			const void *buf, size_t len)
{
	u64 pos = (u64)sector << SECTOR_SHIFT;

	while (len) {
		size_t off = offset_in_page(pos), n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page = store_page(s, pos >> PAGE_SHIFT, true);

		if (!page)
			return -ENOMEM;
		memcpy_to_page(page, off, buf, n);
		buf += n;
		pos += n;
		len -= n;
	}
	return 0;
}

void tornblk_store_read(struct tornblk_store *s, sector_t sector, void *buf,
			size_t len)
{
	u64 pos = (u64)sector << SECTOR_SHIFT;

	while (len) {
		size_t off = offset_in_page(pos), n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page = store_page(s, pos >> PAGE_SHIFT, false);

		if (page)
			memcpy_from_page(buf, page, off, n);
		else
			memset(buf, 0, n);
		buf += n;
		pos += n;
		len -= n;
	}
}

/* Make @dst hold what @src holds in the given range. */
int tornblk_store_copy(struct tornblk_store *dst, struct tornblk_store *src,
		       sector_t sector, size_t len)
{
	void *buf = kmalloc(PAGE_SIZE, GFP_NOIO);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (len && !ret) {
		size_t n = min_t(size_t, len, PAGE_SIZE);

		tornblk_store_read(src, sector, buf, n);
		ret = tornblk_store_write(dst, sector, buf, n);
		sector += n >> SECTOR_SHIFT;
		len -= n;
	}
	kfree(buf);
	return ret;
}
