/* SPDX-License-Identifier: MIT */
/*
 * Where a path leads, for paths that need not exist yet (a journal or a
 * JSON file the command is about to create): the file or block device it
 * names, the device its data would live on, and its resolved name.
 * Nothing is opened or created.
 */
#ifndef AW_WHERE_H
#define AW_WHERE_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

struct aw_where {
	int exists;	     /* the path names something (stat() follows links) */
	struct stat st;	     /* of it, or of its parent directory if it does not exist */
	dev_t dev;	     /* the device its data is on: st_rdev of a block
			      * device, st_dev of anything else */
	char real[PATH_MAX]; /* realpath(); for a missing file its parent's
			      * realpath, '/' and its last component */
};

/*
 * Resolve path.  Returns 0, or -1 with a message in err: the parent of a
 * missing file does not exist, a dangling symlink (creating through it
 * would land where no check looked), or a failing stat or realpath.
 */
int aw_where(const char *path, struct aw_where *w, char *err, size_t len);

/* a and b are one file: the same inode, the same block device under two
 * names, or the same name not yet created. */
int aw_where_same_file(const struct aw_where *a, const struct aw_where *b);

/* real (resolved) is dir (resolved) or lies under it. */
int aw_path_inside(const char *dir, const char *real);

#endif
