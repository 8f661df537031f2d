/* SPDX-License-Identifier: MIT */
/*
 * Definitions that glibc 2.36 lacks: RWF_ATOMIC and the statx atomic write
 * fields (Linux 6.11 uapi).  We call statx(2) through syscall() with our own
 * copy of the kernel's struct so the fields exist whatever libc provides.
 */
#ifndef AW_COMPAT_H
#define AW_COMPAT_H

#include <stdint.h>

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040
#endif

#define AW_STATX_DIOALIGN 0x00002000U
#define AW_STATX_WRITE_ATOMIC 0x00010000U
#define AW_STATX_ATTR_WRITE_ATOMIC 0x00400000ULL
/* Buffered RWF_ATOMIC (this project's kernel, as the buffered atomic write
 * RFCs propose; not upstream): the atomic_write_* fields for page cache
 * writes, asked for on their own. */
#define AW_STATX_WRITE_ATOMIC_BUF 0x00040000U
#define AW_STATX_ATTR_WRITE_ATOMIC_BUF 0x00800000ULL

struct aw_statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

/* Layout of struct statx in include/uapi/linux/stat.h as of Linux 6.12. */
struct aw_statx {
	uint32_t mask;
	uint32_t blksize;
	uint64_t attributes;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint16_t mode;
	uint16_t spare0;
	uint64_t ino;
	uint64_t size;
	uint64_t blocks;
	uint64_t attributes_mask;
	struct aw_statx_ts atime, btime, ctime, mtime;
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align;
	uint32_t dio_offset_align;
	uint64_t subvol;
	uint32_t atomic_write_unit_min;
	uint32_t atomic_write_unit_max;
	uint32_t atomic_write_segments_max;
	uint32_t spare1;
	uint64_t spare3[9];
};

_Static_assert(sizeof(struct aw_statx) == 256, "struct statx is 256 bytes");

/* statx(2) with the atomic write fields; returns 0 or -1 with errno set. */
int aw_statx(int dirfd, const char *path, int flags, unsigned int mask,
	     struct aw_statx *stx);

#endif
