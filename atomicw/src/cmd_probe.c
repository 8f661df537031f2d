// SPDX-License-Identifier: MIT
/*
 * probe: issue exactly one RWF_ATOMIC write, with no checks of our own, and
 * report what the kernel answered.  The kernel tests use it to walk the
 * error contract (bad length, offset, iovec count, buffered I/O, a device
 * without atomic support) through both pwritev2() and io_uring.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cmds.h"
#include "compat.h"
#include "ring.h"
#include "util.h"

#define PROBE_MAX_IOV 64

static int open_probe_file(const struct aw_opts *o)
{
	int flags = O_RDWR | O_CREAT | (o->buffered ? 0 : O_DIRECT);
	int fd = open(o->path, flags, 0644);

	if (fd < 0) {
		fprintf(stderr, "atomicw probe: open %s: %s\n", o->path, strerror(errno));
		return -1;
	}
	if (o->create && ftruncate(fd, (off_t)o->create)) {
		fprintf(stderr, "atomicw probe: extend %s to %llu bytes: %s\n", o->path,
			(unsigned long long)o->create, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Split buf into n iovecs of (nearly) equal length. */
static void split_iov(struct iovec *iov, unsigned int n, char *buf, size_t len)
{
	size_t each = len / n, done = 0;

	for (unsigned int i = 0; i < n; i++) {
		iov[i].iov_base = buf + done;
		iov[i].iov_len = i + 1 == n ? len - done : each;
		done += iov[i].iov_len;
	}
}

/* Returns bytes written or -errno; -1000 when io_uring itself failed. */
static long write_uring(int fd, const struct iovec *iov, unsigned int n, uint64_t off)
{
	struct aw_ring r;
	uint64_t tag;
	int res = -1000;

	if (aw_ring_init(&r, 1))
		return -1000;
	if (aw_ring_writev(&r, fd, iov, n, off, RWF_ATOMIC, 0) == 0 &&
	    aw_ring_submit(&r) == 0 && aw_ring_reap(&r, &tag, &res))
		res = -1000;
	aw_ring_exit(&r);
	return res;
}

int aw_cmd_probe(const struct aw_opts *o)
{
	struct iovec iov[PROBE_MAX_IOV];
	unsigned int n = (unsigned int)o->iovecs;
	size_t len = (size_t)o->block_size;
	char *buf;
	long res;
	int fd;

	buf = aw_alloc_aligned(len);
	if (!buf)
		return 1;
	memset(buf, (int)(o->seed & 0xff), len);
	fd = open_probe_file(o);
	if (fd < 0) {
		free(buf);
		return 1;
	}
	split_iov(iov, n, buf, len);
	if (o->uring) {
		res = write_uring(fd, iov, n, o->offset);
	} else {
		res = pwritev2(fd, iov, (int)n, (off_t)o->offset, RWF_ATOMIC);
		if (res < 0)
			res = -errno;
	}
	close(fd);
	free(buf);
	if (res == -1000)
		return 1;
	printf("probe: %s len=%zu off=%llu iovecs=%u %s: ", o->uring ? "io_uring" : "pwritev2",
	       len, (unsigned long long)o->offset, n, o->buffered ? "buffered" : "direct");
	if (res < 0) {
		printf("%s (%s)\n", strerrorname_np((int)-res), strerror((int)-res));
		return 2;
	}
	if ((size_t)res != len) {
		printf("short %ld\n", res);
		return 3;
	}
	printf("ok %ld\n", res);
	return 0;
}
