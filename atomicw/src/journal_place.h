/* SPDX-License-Identifier: MIT */
/* Where a journal may live: never on its target, by default not beside it. */
#ifndef AW_JOURNAL_PLACE_H
#define AW_JOURNAL_PLACE_H

#include <stddef.h>

#include "where.h"

/*
 * May the journal be written for this target?  Never when it is the
 * target itself under any name (./t, a symlink, a hard link, the same
 * block device): the journal would overwrite what it describes.  Not on
 * the target's device (its filesystem, or the block device itself) unless
 * same_dev_ok: the cut that tears the target takes the journal with it.
 * Returns 0, or -1 with a message in err.
 */
int aw_journal_place_ok(const struct aw_where *target, const struct aw_where *journal,
			int same_dev_ok, char *err, size_t len);

/* The same from the two paths, resolved with aw_where(). */
int aw_journal_check_place(const char *target, const char *journal, int same_dev_ok,
			   char *err, size_t len);

#endif
