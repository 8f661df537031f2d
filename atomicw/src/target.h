/* SPDX-License-Identifier: MIT */
/* Opening the file or block device under test and reading its limits. */
#ifndef AW_TARGET_H
#define AW_TARGET_H

#include <stdint.h>

#include "compat.h"

struct aw_target {
	const char *path;
	int fd;
	int is_bdev;
	uint64_t size;	       /* file size or device size in bytes */
	uint32_t fs_block;     /* statfs f_bsize of the containing fs (files) */
	struct aw_statx stx;   /* with STATX_WRITE_ATOMIC | STATX_DIOALIGN */
	unsigned int dev_major; /* the block device carrying the data */
	unsigned int dev_minor;
	int buffered;	       /* opened without O_DIRECT: stx holds the buffered
				* atomic write limits (STATX_WRITE_ATOMIC_BUF) */
	int created;	       /* aw_target_open created the file */
	int grown;	       /* ... or extended it, from grown_from bytes */
	uint64_t grown_from;
};

/*
 * The size path will have once aw_target_open(..., create_size) has run,
 * found without creating, growing or writing anything (a block device is
 * opened read-only for its size), so that a command can check all it
 * needs before it makes the file.  Prints an error and returns -1 if path
 * is missing without create_size, or neither a regular file nor a block
 * device.
 */
int aw_target_size_ahead(const char *path, uint64_t create_size, uint64_t *size);

/*
 * Open path with flags (O_DIRECT among them, or the target is buffered and
 * its statx atomic limits are those of buffered RWF_ATOMIC writes).  With
 * create_size, a regular file is created or extended to that size.  Prints
 * an error and returns -1 on failure (having removed or shrunk back what it
 * made).
 */
int aw_target_open(struct aw_target *t, const char *path, int flags,
		   uint64_t create_size);
void aw_target_close(struct aw_target *t);

/*
 * Undo what aw_target_open's create_size did, for a command that refuses
 * after opening (statx's atomic limits need the file): remove a file it
 * created, shrink one it grew.  Prints an error if that fails.
 */
void aw_target_undo_create(struct aw_target *t);

/* Does statx say RWF_ATOMIC writes (direct or buffered, as opened) of len
 * bytes can work here? */
int aw_target_atomic_ok(const struct aw_target *t, uint32_t len);

/* The statx attribute that says t takes RWF_ATOMIC writes, as opened. */
uint64_t aw_target_atomic_attr(const struct aw_target *t);

/*
 * Read /sys/dev/block/MAJ:MIN/queue/NAME (or the parent's, for a
 * partition) as a number.  Returns 0 or -1 if absent.
 */
int aw_sysfs_queue(const struct aw_target *t, const char *name, uint64_t *val);

#endif
