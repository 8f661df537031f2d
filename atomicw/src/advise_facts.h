/* SPDX-License-Identifier: MIT */
/* Reading the facts atomicw advise judges from the running system. */
#ifndef AW_ADVISE_FACTS_H
#define AW_ADVISE_FACTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "advise.h"

/*
 * The mount of device maj:min whose mount point is the longest prefix of
 * path, from a /proc/self/mountinfo stream: its filesystem type and its
 * superblock options (cut at sizeof(opts) - 1).  Returns 0, or -1 if no line
 * matches.
 */
struct aw_mount {
	char fstype[32];
	char opts[1024];
};
int aw_mountinfo(FILE *f, unsigned int maj, unsigned int min, const char *path,
		 struct aw_mount *m);

/* Is opt one of the comma-separated options in opts? */
int aw_mount_has_opt(const char *opts, const char *opt);

/*
 * Everything about path (a database directory, or with page any other
 * directory): the filesystem, statx of a file there, the device stack, the
 * kernel's untorn-buffered report, the page size (page, or pg_controldata
 * for a PostgreSQL directory, or ibdata1's flags for an InnoDB one).
 * Writes nothing anywhere.  Prints an error and returns -1 if path cannot
 * be examined, or if page is 0 and path is neither a PostgreSQL data
 * directory or tablespace nor an InnoDB data directory.
 */
int aw_advise_gather(const char *path, enum aw_db db, uint64_t page, int direct,
		     struct aw_advise_in *in);

#endif
