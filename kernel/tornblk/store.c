// SPDX-License-Identifier: GPL-2.0
/*
 * The page store behind tornblk: pages in an xarray indexed by page number,
 * allocated on first use (the brd model).  Allocation happens only in
 * tornblk_store_prepare(), before a write changes anything, so that a write
 * that cannot get memory fails whole and later copies cannot fail.
 */
#include "tornblk.h"

#include <linux/highmem.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

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

/* A copy of a write's data, taken on the I/O path: no I/O to get memory. */
u8 *tornblk_buf_alloc(size_t len)
{
	unsigned int noio;
	u8 *buf;

	if (tornblk_should_fail_alloc())
		return NULL;
	noio = memalloc_noio_save();
	buf = kvmalloc(len, GFP_KERNEL);
	memalloc_noio_restore(noio);
	return buf;
}

/* A zeroed page reads like an absent one, so a partial prepare is harmless. */
int tornblk_store_prepare(struct tornblk_store *s, sector_t sector, size_t len)
{
	u64 pos = (u64)sector << SECTOR_SHIFT;
	pgoff_t idx, last = (pos + len - 1) >> PAGE_SHIFT;
	struct page *page;
	void *old;

	for (idx = pos >> PAGE_SHIFT; len && idx <= last; idx++) {
		if (xa_load(&s->pages, idx))
			continue;
		if (tornblk_should_fail_alloc())
			return -ENOMEM;
		page = alloc_page(GFP_NOIO | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		old = xa_store(&s->pages, idx, page, GFP_NOIO);
		if (xa_is_err(old)) {
			__free_page(page);
			return -ENOMEM;
		}
		s->nr_pages++;
		atomic64_inc(&tornblk_live_pages);
	}
	return 0;
}

/* Calls @fn for each page-sized piece of [sector, sector + len). */
#define for_each_store_piece(s, sector, len, page, off, n)		\
	for (u64 _pos = (u64)(sector) << SECTOR_SHIFT, _end = _pos + (len);\
	     _pos < _end &&						\
	     ((off) = offset_in_page(_pos),				\
	      (n) = min_t(size_t, _end - _pos, PAGE_SIZE - (off)),	\
	      (page) = xa_load(&(s)->pages, _pos >> PAGE_SHIFT), 1);	\
	     _pos += (n))

void tornblk_store_write(struct tornblk_store *s, sector_t sector,
			 const void *buf, size_t len)
{
	struct page *page;
	size_t off, n;

	for_each_store_piece(s, sector, len, page, off, n) {
		/* tornblk_store_prepare() made every page of the range */
		if (!WARN_ON_ONCE(!page))
			memcpy_to_page(page, off, buf, n);
		buf += n;
	}
}

void tornblk_store_read(struct tornblk_store *s, sector_t sector, void *buf,
			size_t len)
{
	struct page *page;
	size_t off, n;

	for_each_store_piece(s, sector, len, page, off, n) {
		if (page)
			memcpy_from_page(buf, page, off, n);
		else
			memset(buf, 0, n);
		buf += n;
	}
}

/* Does the store hold anything else than @buf in the range? */
bool tornblk_store_differs(struct tornblk_store *s, sector_t sector,
			   const void *buf, size_t len)
{
	struct page *page;
	size_t off, n;
	bool differs = false;

	for_each_store_piece(s, sector, len, page, off, n) {
		if (page) {
			void *p = kmap_local_page(page);

			differs = memcmp(p + off, buf, n);
			kunmap_local(p);
		} else {
			differs = memchr_inv(buf, 0, n);
		}
		if (differs)
			break;
		buf += n;
	}
	return differs;
}

/* Make @dst hold what @src holds in a range that @dst has prepared. */
void tornblk_store_copy(struct tornblk_store *dst, struct tornblk_store *src,
			sector_t sector, size_t len)
{
	u64 pos = (u64)sector << SECTOR_SHIFT, end = pos + len;

	while (pos < end) {
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, end - pos, PAGE_SIZE - off);
		struct page *d = xa_load(&dst->pages, pos >> PAGE_SHIFT);
		struct page *sp = xa_load(&src->pages, pos >> PAGE_SHIFT);

		if (!WARN_ON_ONCE(!d)) {
			if (sp)
				memcpy_page(d, off, sp, off, n);
			else
				memzero_page(d, off, n);
		}
		pos += n;
	}
}
