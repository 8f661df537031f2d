// SPDX-License-Identifier: MIT
#include "explain.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void explain_atomic(const struct aw_target *t, int err, uint64_t off,
			   uint32_t len)
{
	const struct aw_statx *s = &t->stx;

	if (!(s->attributes & aw_target_atomic_attr(t))) {
		if (t->buffered)
			fprintf(stderr,
				"atomicw:   %s does not take buffered atomic writes (statx "
				"reports no STATX_ATTR_WRITE_ATOMIC_BUF): only files whose "
				"blocks the kernel keeps untorn do, on a kernel with the "
				"buffered part of our series\n", t->path);
		else
			fprintf(stderr,
				"atomicw:   %s does not support atomic writes (statx reports "
				"no STATX_ATTR_WRITE_ATOMIC): the device has no atomic write "
				"unit, or the filesystem/kernel does not pass RWF_ATOMIC "
				"through\n", t->path);
		return;
	}
	if (err == EINVAL) {
		if (len < s->atomic_write_unit_min || len > s->atomic_write_unit_max)
			fprintf(stderr,
				"atomicw:   the length %u is outside the atomic write unit "
				"range %u..%u that statx reports\n",
				len, s->atomic_write_unit_min, s->atomic_write_unit_max);
		else if (off % len)
			fprintf(stderr,
				"atomicw:   the offset %" PRIu64 " is not aligned to the "
				"write length %u (atomic writes must be naturally aligned)\n",
				off, len);
		else if (t->buffered)
			fprintf(stderr,
				"atomicw:   the kernel refused the buffered atomic write's "
				"shape (one filesystem block, naturally aligned, inside the "
				"file's size)\n");
		else
			fprintf(stderr,
				"atomicw:   the kernel refused the atomic write's shape "
				"(needs O_DIRECT, one segment, natural alignment, no boundary "
				"crossing)\n");
	} else if (err == EOPNOTSUPP) {
		fprintf(stderr,
			"atomicw:   this file or device cannot do RWF_ATOMIC (the "
			"kernel, filesystem or device lacks support)\n");
	}
}

const char *aw_write_kind(int atomic, int buffered)
{
	if (buffered)
		return atomic ? "buffered RWF_ATOMIC" : "buffered";
	return atomic ? "RWF_ATOMIC" : "O_DIRECT";
}

void aw_explain_write_error(const struct aw_target *t, int err, uint64_t off,
			    uint32_t len, int atomic)
{
	fprintf(stderr, "atomicw: %s write of %u bytes at offset %" PRIu64 " to %s "
		"failed: %s\n", aw_write_kind(atomic, t->buffered), len, off, t->path,
		strerror(err));
	if (atomic && (err == EINVAL || err == EOPNOTSUPP))
		explain_atomic(t, err, off, len);
	else if (err == EINVAL && !t->buffered)
		fprintf(stderr, "atomicw:   O_DIRECT needs the offset, length and buffer "
			"aligned to the logical block size (%u here)\n",
			t->stx.dio_offset_align ? t->stx.dio_offset_align : 512);
	else if (err == EIO)
		fprintf(stderr, "atomicw:   the device failed the I/O (a tornblk device "
			"that lost power fails everything until it is powered on)\n");
}
