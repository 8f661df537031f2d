// SPDX-License-Identifier: MIT
#include "journal_place.h"

#include <sys/sysmacros.h>

#include "util.h"

int aw_journal_place_ok(const struct aw_where *target, const struct aw_where *journal,
			int same_dev_ok, char *err, size_t len)
{
	if (aw_where_same_file(target, journal))
		return aw_errf(err, len, "--journal %s is the target %s itself", journal->real,
			       target->real);
	if (!same_dev_ok && target->dev == journal->dev)
		return aw_errf(err, len, "--journal %s is on the same device (%u:%u) as %s: the "
			       "cut that tears the target would take the journal with it; put "
			       "it on another disk, or give --journal-same-device",
			       journal->real, major(journal->dev), minor(journal->dev),
			       target->real);
	return 0;
}

int aw_journal_check_place(const char *target, const char *journal, int same_dev_ok,
			   char *err, size_t len)
{
	struct aw_where t, j;

	if (aw_where(target, &t, err, len) || aw_where(journal, &j, err, len))
		return -1;
	return aw_journal_place_ok(&t, &j, same_dev_ok, err, len);
}
