// SPDX-License-Identifier: MIT
/*
 * bszrace: change a block device's block size (BLKBSZSET) in a loop while
 * other threads fill its page cache by every path that does not go through
 * read()/write(): splice reads, fadvise/readahead, page faults of a shared
 * mapping, direct writes whose page cache invalidation fails (a shared
 * writable mapping dirties the same range), so that they fall back to
 * buffered writes, and partition table rescans (BLKRRPART: the kernel reads
 * the table through the page cache; the device must allow partitions).
 * Each of those must see one block size and one folio order, never a mix
 * (the kernel would BUG or oops).
 *
 * usage: bszrace DEV SECONDS SIZE...   (SIZE: block sizes to cycle through)
 * Prints one line per thread with its operation count (the resizer: block
 * size changes that took, each checked with BLKBSZGET); exit 0 when every
 * thread did work and no call failed unexpectedly, 1 otherwise.  Whether the
 * direct-write fallback ran is not observable from here: the dirty shared
 * mapping only makes it likely.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096u
#define SPAN (8u << 20) /* the range every thread works on */

static const char *dev;
static atomic_int stop, failed;
static int sizes[8], nsizes;

struct worker {
	const char *name;
	void *(*fn)(void *);
	uint64_t ops;
	pthread_t tid;
};

static void fail(const char *what)
{
	fprintf(stderr, "bszrace: %s: %s\n", what, strerror(errno));
	atomic_store(&failed, 1);
	atomic_store(&stop, 1);
}

/* A small xorshift generator per thread: offsets need no quality. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int open_dev(int flags)
{
	int fd = open(dev, flags);

	if (fd < 0)
		fail("open");
	return fd;
}

static void *resizer(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDONLY);

	/* Only a change that took counts, and BLKBSZGET must agree with it. */
	for (unsigned int i = 0; fd >= 0 && !atomic_load(&stop); i++) {
		int sz = sizes[i % (unsigned int)nsizes], got = 0;

		if (ioctl(fd, BLKBSZSET, &sz) < 0) {
			if (errno == EBUSY)	/* a rescan holds the claim */
				continue;
			fail("BLKBSZSET");
			break;
		}
		if (ioctl(fd, BLKBSZGET, &got) < 0 || got != sz) {
			fprintf(stderr, "bszrace: BLKBSZSET %d, then BLKBSZGET says %d\n", sz, got);
			atomic_store(&failed, 1);
			atomic_store(&stop, 1);
			break;
		}
		w->ops++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *splicer(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDONLY), p[2];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char buf[65536];

	if (fd < 0 || pipe(p) < 0) {
		fail("splicer setup");
		return NULL;
	}
	while (!atomic_load(&stop)) {
		loff_t off = (loff_t)(next(&seed) % (SPAN / PAGE)) * PAGE;
		ssize_t n = splice(fd, &off, p[1], NULL, sizeof(buf), 0);

		if (n < 0) {
			fail("splice");
			break;
		}
		while (n > 0) {
			ssize_t r = read(p[0], buf, (size_t)n);

			if (r <= 0) {
				fail("reading the pipe");
				break;
			}
			n -= r;
		}
		w->ops++;
	}
	close(p[0]);
	close(p[1]);
	close(fd);
	return NULL;
}

static void *advisor(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDONLY);
	uint64_t seed = 0x2545f4914f6cdd1dull;

	while (fd >= 0 && !atomic_load(&stop)) {
		off_t off = (off_t)(next(&seed) % (SPAN / PAGE)) * PAGE;
		int err = posix_fadvise(fd, off, 1 << 20, POSIX_FADV_WILLNEED);

		if (!err && readahead(fd, off, 256 << 10) < 0)
			err = errno;
		/* Drop the cache now and then, so that readahead has work. */
		if (!err && w->ops % 16 == 0)
			err = posix_fadvise(fd, 0, SPAN, POSIX_FADV_DONTNEED);
		if (err) {
			errno = err;
			fail("fadvise/readahead");
			break;
		}
		w->ops++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *faulter(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDONLY);
	uint64_t seed = 0x853c49e6748fea9bull;
	volatile unsigned char *m;
	unsigned int sum = 0;

	if (fd < 0)
		return NULL;
	m = mmap(NULL, SPAN, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		close(fd);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		size_t off = (size_t)(next(&seed) % (SPAN / PAGE)) * PAGE;

		sum += m[off];
		if (w->ops % 64 == 0 &&
		    madvise((void *)m, SPAN, w->ops % 128 ? MADV_WILLNEED : MADV_DONTNEED) < 0) {
			fail("madvise");
			break;
		}
		w->ops++;
	}
	(void)sum;
	munmap((void *)m, SPAN);
	close(fd);
	return NULL;
}

/* Keeps the first 1 MiB dirty through a shared mapping: direct writes
 * there fail to invalidate the page cache and fall back to buffered. */
static void *dirtier(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDWR);
	volatile unsigned char *m;

	if (fd < 0)
		return NULL;
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fail("mmap (writable)");
		close(fd);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		m[(w->ops * PAGE) % (1 << 20)] = (unsigned char)w->ops;
		w->ops++;
	}
	munmap((void *)m, 1 << 20);
	close(fd);
	return NULL;
}

static void *dio_writer(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDWR | O_DIRECT);
	uint64_t seed = 0xda3e39cb94b95bdbull;
	void *buf = NULL;

	if (fd < 0)
		return NULL;
	if (posix_memalign(&buf, PAGE, PAGE)) {
		fail("posix_memalign");
		close(fd);
		return NULL;
	}
	memset(buf, 0x5a, PAGE);
	while (!atomic_load(&stop)) {
		off_t off = (off_t)(next(&seed) % ((1 << 20) / PAGE)) * PAGE;

		if (pwrite(fd, buf, PAGE, off) != PAGE) {
			fail("O_DIRECT pwrite");
			break;
		}
		w->ops++;
	}
	free(buf);
	close(fd);
	return NULL;
}

/*
 * Rescans the partition table: the kernel reads it through the page cache.
 * A rescan and a BLKBSZSET each claim the device for a moment, so either
 * may find it busy: that is not an error.
 */
static void *rescanner(void *arg)
{
	struct worker *w = arg;
	int fd = open_dev(O_RDONLY);

	while (fd >= 0 && !atomic_load(&stop)) {
		if (ioctl(fd, BLKRRPART) < 0) {
			if (errno == EBUSY)
				continue;
			fail("BLKRRPART");
			break;
		}
		w->ops++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker ws[] = {
		{ .name = "resize", .fn = resizer }, { .name = "splice", .fn = splicer },
		{ .name = "fadvise", .fn = advisor }, { .name = "fault", .fn = faulter },
		{ .name = "dirty", .fn = dirtier }, { .name = "odirect", .fn = dio_writer },
		{ .name = "rescan", .fn = rescanner },
	};
	size_t n = sizeof(ws) / sizeof(ws[0]);
	char *end;
	long secs;
	int ret = 0;

	if (argc < 4 || argc > 3 + 8) {
		fprintf(stderr, "usage: bszrace DEV SECONDS SIZE... (1 to 8 block sizes)\n");
		return 1;
	}
	dev = argv[1];
	errno = 0;
	secs = strtol(argv[2], &end, 10);
	if (errno || *end || secs < 1 || secs > 3600) {
		fprintf(stderr, "bszrace: SECONDS must be 1..3600, got '%s'\n", argv[2]);
		return 1;
	}
	for (int i = 3; i < argc; i++) {
		long v = strtol(argv[i], &end, 10);

		if (*end || v < 512 || v > 65536 || (v & (v - 1))) {
			fprintf(stderr, "bszrace: a block size is a power of two in 512..65536, got '%s'\n",
				argv[i]);
			return 1;
		}
		sizes[nsizes++] = (int)v;
	}
	for (size_t i = 0; i < n; i++) {
		errno = pthread_create(&ws[i].tid, NULL, ws[i].fn, &ws[i]);
		if (errno) {
			fail("pthread_create");
			n = i;
			break;
		}
	}
	for (long s = 0; s < secs && !atomic_load(&stop); s++)
		sleep(1);
	atomic_store(&stop, 1);
	for (size_t i = 0; i < n; i++) {
		pthread_join(ws[i].tid, NULL);
		printf("%-8s %" PRIu64 "\n", ws[i].name, ws[i].ops);
		if (!ws[i].ops) {
			fprintf(stderr, "bszrace: thread %s did nothing\n", ws[i].name);
			ret = 1;
		}
	}
	return atomic_load(&failed) ? 1 : ret;
}
