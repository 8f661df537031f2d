// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "target.h"

static void kv_u64(const char *key, unsigned long long v)
{
	printf("%-32s %llu\n", key, v);
}

int aw_cmd_info(const struct aw_opts *o)
{
	static const char *const queue_attrs[] = {
		"logical_block_size", "physical_block_size", "minimum_io_size",
		"atomic_write_unit_min_bytes", "atomic_write_unit_max_bytes",
		"atomic_write_max_bytes", "atomic_write_boundary_bytes",
	};
	struct aw_target t;
	const struct aw_statx *s;
	char key[64];

	if (aw_target_open(&t, o->path, O_RDONLY | O_DIRECT, 0))
		return 1;
	s = &t.stx;
	printf("%-32s %s\n", "path:", t.path);
	printf("%-32s %s\n", "type:", t.is_bdev ? "block-device" : "regular-file");
	printf("%-32s %u:%u\n", "device:", t.dev_major, t.dev_minor);
	kv_u64("size:", t.size);
	if (!t.is_bdev)
		kv_u64("fs_block_size:", t.fs_block);
	kv_u64("stx_blksize:", s->blksize);
	if (s->mask & AW_STATX_DIOALIGN) {
		kv_u64("dio_mem_align:", s->dio_mem_align);
		kv_u64("dio_offset_align:", s->dio_offset_align);
	}
	printf("%-32s %s\n", "statx_write_atomic:",
	       (s->mask & AW_STATX_WRITE_ATOMIC) ? "reported" : "not-reported");
	printf("%-32s %s\n", "attr_write_atomic:",
	       (s->attributes & AW_STATX_ATTR_WRITE_ATOMIC) ? "yes" : "no");
	kv_u64("atomic_write_unit_min:", s->atomic_write_unit_min);
	kv_u64("atomic_write_unit_max:", s->atomic_write_unit_max);
	kv_u64("atomic_write_segments_max:", s->atomic_write_segments_max);
	if (!t.is_bdev) {
		struct aw_statx b;

		/* The same fields for buffered writes, asked for on their own. */
		if (aw_statx(AT_FDCWD, t.path, 0, AW_STATX_WRITE_ATOMIC_BUF, &b))
			memset(&b, 0, sizeof(b));
		printf("%-32s %s\n", "statx_write_atomic_buf:",
		       (b.mask & AW_STATX_WRITE_ATOMIC_BUF) ? "reported" : "not-reported");
		printf("%-32s %s\n", "attr_write_atomic_buf:",
		       (b.attributes & AW_STATX_ATTR_WRITE_ATOMIC_BUF) ? "yes" : "no");
		kv_u64("buffered_atomic_write_unit_max:",
		       (b.mask & AW_STATX_WRITE_ATOMIC_BUF) ? b.atomic_write_unit_max : 0);
	}
	for (size_t i = 0; i < sizeof(queue_attrs) / sizeof(queue_attrs[0]); i++) {
		uint64_t v;

		snprintf(key, sizeof(key), "queue/%s:", queue_attrs[i]);
		if (aw_sysfs_queue(&t, queue_attrs[i], &v) == 0)
			kv_u64(key, v);
		else
			printf("%-32s %s\n", key, "absent");
	}
	aw_target_close(&t);
	return 0;
}
