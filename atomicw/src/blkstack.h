/* SPDX-License-Identifier: MIT */
/*
 * The block device stack under a filesystem, read from sysfs: the device
 * the filesystem is on, then (for a partition) its disk, then the devices
 * below each dm, md or loop layer.  The sysfs root is a parameter so that
 * the unit tests can walk a tree of their own.
 */
#ifndef AW_BLKSTACK_H
#define AW_BLKSTACK_H

#include <stddef.h>
#include <stdint.h>

#define AW_STACK_MAX 16

enum aw_layer_kind {
	AW_LAYER_DISK,
	AW_LAYER_PART, /* a partition: its limits are its disk's */
	AW_LAYER_DM,
	AW_LAYER_MD,
	AW_LAYER_LOOP,
};

struct aw_layer {
	char name[64];	    /* the kernel's name: nvme0n1p1, dm-0, md0 */
	unsigned int maj, min; /* its device number (0:0 if sysfs has none) */
	enum aw_layer_kind kind;
	int depth;	    /* 0: the device the filesystem is on */
	int below;	    /* index of the first layer under this one, -1 if none */
	uint64_t part_start; /* partition: byte offset in its disk */
	uint64_t lbs, pbs;  /* logical and physical block size */
	int has_atomic;	    /* the kernel has the atomic_write_* attributes */
	uint64_t awu_min, awu_max, aw_boundary, aw_max;
	uint64_t chunk;	    /* md chunk or queue chunk_sectors, bytes (0: none) */
	int write_cache;    /* 1 write back (volatile), 0 write through, -1 unknown */
	int stable_writes;  /* queue/stable_writes, -1 unknown */
	char detail[160];   /* dm name, md level, loop backing file */
};

struct aw_stack {
	struct aw_layer l[AW_STACK_MAX];
	int n;
};

/*
 * Walk the stack under block device maj:min, with sysfs at root ("/sys").
 * Returns 0, or -1 with a message in err (device not in sysfs, a stack
 * deeper than AW_STACK_MAX, an attribute that does not parse).
 */
int aw_stack_walk(const char *root, unsigned int maj, unsigned int min,
		  struct aw_stack *s, char *err, size_t errlen);

const char *aw_layer_kind_name(enum aw_layer_kind k);

#endif
