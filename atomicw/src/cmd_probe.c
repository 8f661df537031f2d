// SPDX-License-Identifier: MIT
/*
 * probe: issue exactly one RWF_ATOMIC write, with no checks of our own, and
 * report what the kernel answered.  The kernel tests use it to walk the
 * error contract (bad length, offset, iovec count, buffered I/O, a device
 * without atomic support, O_APPEND, a buffer that faults part way) through
 * both pwritev2() and io_uring.  With --rival it issues --count writes while
 * a child process keeps dirtying the same range through a shared mapping,
 * so that page-cache invalidation before the direct write can fail, and
 * tallies the answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "compat.h"
#include "ring.h"
#include "util.h"

#define PROBE_MAX_IOV 64
#define PROBE_URING_FAILED (-1000)

static int open_probe_file(const struct aw_opts *o)
{
	int flags = O_RDWR | O_CREAT | (o->buffered ? 0 : O_DIRECT) | (o->append ? O_APPEND : 0);
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

/* The write buffer: page-aligned, filled with the seed byte; with
 * --fault-tail its last page is made inaccessible, so that pinning it for
 * direct I/O stops short of the end. */
static char *probe_buffer(const struct aw_opts *o, size_t len, size_t *maplen)
{
	char *buf;

	*maplen = (len + AW_PAGE - 1) / AW_PAGE * AW_PAGE;
	buf = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "atomicw probe: map a %zu-byte buffer: %s\n", *maplen,
			strerror(errno));
		return NULL;
	}
	memset(buf, (int)(o->seed & 0xff), *maplen);
	if (o->fault_tail && mprotect(buf + *maplen - AW_PAGE, AW_PAGE, PROT_NONE)) {
		fprintf(stderr, "atomicw probe: protect the buffer's last page: %s\n",
			strerror(errno));
		munmap(buf, *maplen);
		return NULL;
	}
	return buf;
}

/* Returns bytes written or -errno; PROBE_URING_FAILED when io_uring itself
 * failed (already reported). */
static long write_uring(struct aw_ring *r, int fd, const struct iovec *iov, unsigned int n,
			uint64_t off)
{
	uint64_t tag;
	int res = PROBE_URING_FAILED;

	if (aw_ring_writev(r, fd, iov, n, off, RWF_ATOMIC, 0) == 0 &&
	    aw_ring_submit(r) == 0 && aw_ring_reap(r, &tag, &res))
		res = PROBE_URING_FAILED;
	return res;
}

static long write_once(const struct aw_opts *o, struct aw_ring *r, int fd,
		       const struct iovec *iov, unsigned int n)
{
	long res;

	if (o->uring)
		return write_uring(r, fd, iov, n, o->offset);
	res = pwritev2(fd, iov, (int)n, (off_t)o->offset, RWF_ATOMIC);
	return res < 0 ? -errno : res;
}

/*
 * The rival: a child that maps [offset, offset + len) of the target shared
 * and stores into every page of it until it is killed, so that the pages
 * are dirty again soon after each writeback.  Returns its pid, or -1.
 */
static pid_t start_rival(const struct aw_opts *o, size_t len)
{
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "atomicw probe: fork the rival: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(o->path, O_RDWR);
		volatile char *map;

		if (fd < 0) {
			fprintf(stderr, "atomicw probe: rival: open %s: %s\n", o->path,
				strerror(errno));
			_exit(1);
		}
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)o->offset);
		if (map == MAP_FAILED) {
			fprintf(stderr, "atomicw probe: rival: map %s at %llu: %s\n", o->path,
				(unsigned long long)o->offset, strerror(errno));
			_exit(1);
		}
		for (unsigned char v = 0;; v++)
			for (size_t i = 0; i < len; i += AW_PAGE)
				map[i] = (char)v;
	}
	return pid;
}

/* Tally of answers in --rival mode, by errno (0: whole write). */
struct probe_tally {
	unsigned long ok, shorts, by_errno[256];
};

static int report_tally(const struct aw_opts *o, const struct probe_tally *t, size_t len)
{
	int other = 0;

	printf("probe: rival %s len=%zu off=%llu writes=%llu: ok %lu", o->uring ? "io_uring" :
	       "pwritev2", len, (unsigned long long)o->offset, (unsigned long long)o->count, t->ok);
	for (int e = 1; e < 256; e++) {
		if (!t->by_errno[e])
			continue;
		printf(", %s %lu", strerrorname_np(e), t->by_errno[e]);
		other = 1;
	}
	printf(", short %lu\n", t->shorts);
	if (t->shorts)
		return 3;
	return other ? 2 : 0;
}

static int probe_rival(const struct aw_opts *o, struct aw_ring *r, int fd,
		       const struct iovec *iov, unsigned int n, size_t len)
{
	struct probe_tally t;
	pid_t rival;
	int status;
	long res = 0;

	memset(&t, 0, sizeof(t));
	rival = start_rival(o, len);
	if (rival < 0)
		return 1;
	for (uint64_t i = 0; i < o->count; i++) {
		res = write_once(o, r, fd, iov, n);
		if (res == PROBE_URING_FAILED)
			break;
		if (res >= 0 && (size_t)res == len)
			t.ok++;
		else if (res >= 0)
			t.shorts++;
		else
			t.by_errno[-res < 256 ? -res : 255]++;
	}
	kill(rival, SIGKILL);
	if (waitpid(rival, &status, 0) < 0 || !WIFSIGNALED(status)) {
		fprintf(stderr, "atomicw probe: the rival stopped early (see above)\n");
		return 1;
	}
	if (res == PROBE_URING_FAILED)
		return 1;
	return report_tally(o, &t, len);
}

static int report_one(const struct aw_opts *o, long res, size_t len, unsigned int n)
{
	printf("probe: %s len=%zu off=%llu iovecs=%u %s%s%s: ", o->uring ? "io_uring" : "pwritev2",
	       len, (unsigned long long)o->offset, n, o->buffered ? "buffered" : "direct",
	       o->append ? " append" : "", o->fault_tail ? " fault-tail" : "");
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

int aw_cmd_probe(const struct aw_opts *o)
{
	struct iovec iov[PROBE_MAX_IOV];
	unsigned int n = (unsigned int)o->iovecs;
	size_t len = (size_t)o->block_size, maplen;
	struct aw_ring r;
	int fd, rc = 1;
	char *buf;
	long res;

	if (sysconf(_SC_PAGESIZE) != AW_PAGE) {
		fprintf(stderr, "atomicw probe: page size is %ld, built for %u\n",
			sysconf(_SC_PAGESIZE), AW_PAGE);
		return 1;
	}
	buf = probe_buffer(o, len, &maplen);
	if (!buf)
		return 1;
	fd = open_probe_file(o);
	if (fd < 0)
		goto out_buf;
	if (o->uring && aw_ring_init(&r, 1))
		goto out_fd;
	split_iov(iov, n, buf, len);
	if (o->rival) {
		rc = probe_rival(o, &r, fd, iov, n, len);
	} else {
		res = write_once(o, &r, fd, iov, n);
		if (res != PROBE_URING_FAILED)
			rc = report_one(o, res, len, n);
	}
	if (o->uring)
		aw_ring_exit(&r);
out_fd:
	close(fd);
out_buf:
	munmap(buf, maplen);
	return rc;
}
