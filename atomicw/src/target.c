// SPDX-License-Identifier: MIT
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

int aw_target_size_ahead(const char *path, uint64_t create_size, uint64_t *size)
{
	struct stat st;
	int fd, ret = 0;

	if (stat(path, &st)) {
		if (errno != ENOENT || !create_size) {
			fprintf(stderr, "atomicw: cannot open %s: %s\n", path, strerror(errno));
			return -1;
		}
		*size = create_size;
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size > create_size ? (uint64_t)st.st_size : create_size;
		return 0;
	}
	if (!S_ISBLK(st.st_mode)) {
		fprintf(stderr, "atomicw: %s is neither a regular file nor a block device\n",
			path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, size)) {
		fprintf(stderr, "atomicw: %s %s: %s\n", fd < 0 ? "cannot open" : "BLKGETSIZE64",
			path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

int aw_target_open(struct aw_target *t, const char *path, int flags,
		   uint64_t create_size)
{
	struct statfs sfs;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->buffered = !(flags & O_DIRECT);
	t->fd = open(path, flags, 0644);
	if (t->fd < 0 && errno == ENOENT && create_size) {
		/* O_EXCL: only a file made here is ever removed again */
		t->fd = open(path, flags | O_CREAT | O_EXCL, 0644);
		t->created = t->fd >= 0;
	}
	if (t->fd < 0) {
		int err = errno;

		fprintf(stderr, "atomicw: cannot open %s: %s%s\n", path, strerror(err),
			err == EINVAL ? " (the filesystem does not support O_DIRECT)" : "");
		return -1;
	}
	/* Asked together, the direct limits would win (the kernel's rule). */
	if (aw_statx(AT_FDCWD, path, 0, (t->buffered ? AW_STATX_WRITE_ATOMIC_BUF :
					 AW_STATX_WRITE_ATOMIC) | AW_STATX_DIOALIGN |
		     STATX_BASIC_STATS, &t->stx)) {
		fprintf(stderr, "atomicw: statx %s: %s\n", path, strerror(errno));
		goto fail;
	}
	t->is_bdev = S_ISBLK(t->stx.mode);
	if (t->is_bdev) {
		t->dev_major = t->stx.rdev_major;
		t->dev_minor = t->stx.rdev_minor;
		if (ioctl(t->fd, BLKGETSIZE64, &t->size)) {
			fprintf(stderr, "atomicw: BLKGETSIZE64 %s: %s\n", path, strerror(errno));
			goto fail;
		}
		return 0;
	}
	if (!S_ISREG(t->stx.mode)) {
		fprintf(stderr, "atomicw: %s is neither a regular file nor a block device\n",
			path);
		goto fail;
	}
	t->dev_major = t->stx.dev_major;
	t->dev_minor = t->stx.dev_minor;
	if (fstatfs(t->fd, &sfs)) {
		fprintf(stderr, "atomicw: statfs %s: %s\n", path, strerror(errno));
		goto fail;
	}
	t->fs_block = (uint32_t)sfs.f_bsize;
	t->size = t->stx.size;
	if (create_size > t->size) {
		t->grown = 1;
		t->grown_from = t->size;
		if (ftruncate(t->fd, (off_t)create_size)) {
			fprintf(stderr, "atomicw: cannot size %s to %" PRIu64 " bytes: %s\n",
				path, create_size, strerror(errno));
			goto fail;
		}
		t->size = create_size;
	}
	return 0;
fail:
	aw_target_undo_create(t);
	close(t->fd);
	t->fd = -1;
	return -1;
}

void aw_target_undo_create(struct aw_target *t)
{
	if (t->created && unlink(t->path))
		fprintf(stderr, "atomicw: removing %s, which this run created: %s\n", t->path,
			strerror(errno));
	else if (!t->created && t->grown && t->fd >= 0 && ftruncate(t->fd, (off_t)t->grown_from))
		fprintf(stderr, "atomicw: shrinking %s back to %" PRIu64 " bytes: %s\n", t->path,
			t->grown_from, strerror(errno));
	t->created = t->grown = 0;
}

void aw_target_close(struct aw_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

uint64_t aw_target_atomic_attr(const struct aw_target *t)
{
	return t->buffered ? AW_STATX_ATTR_WRITE_ATOMIC_BUF : AW_STATX_ATTR_WRITE_ATOMIC;
}

int aw_target_atomic_ok(const struct aw_target *t, uint32_t len)
{
	const struct aw_statx *s = &t->stx;

	return (s->mask & (t->buffered ? AW_STATX_WRITE_ATOMIC_BUF : AW_STATX_WRITE_ATOMIC)) &&
	       (s->attributes & aw_target_atomic_attr(t)) &&
	       len >= s->atomic_write_unit_min && len <= s->atomic_write_unit_max;
}

int aw_sysfs_queue(const struct aw_target *t, const char *name, uint64_t *val)
{
	static const char *const fmts[] = {
		"/sys/dev/block/%u:%u/queue/%s",
		"/sys/dev/block/%u:%u/../queue/%s",
	};
	char path[256];
	unsigned long long v;

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		FILE *f;
		int ok;

		snprintf(path, sizeof(path), fmts[i], t->dev_major, t->dev_minor, name);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fscanf(f, "%llu", &v) == 1;
		fclose(f);
		if (ok) {
			*val = v;
			return 0;
		}
	}
	return -1;
}
