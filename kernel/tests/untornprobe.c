// SPDX-License-Identifier: MIT
/*
 * untornprobe: two probes of buffered writes to one block of a file, for
 * untorn-buffered.sh.
 *
 *   untornprobe shortcopy FILE OFFSET BLOCK POWER
 *     Fills the block at OFFSET with 'A' (fsynced), then one thread writes it
 *     with 'B' through two iovecs (the first 4k, then the rest) while the
 *     kernel's fail_usercopy fault injection (debugfs, task filter: that
 *     thread only) lets the first copy from user space through and fails
 *     every later one: a copy that stops short after 4k of the block, and
 *     keeps stopping.  After up to 2 s the main thread fsyncs the file, writes
 *     0 to POWER (a tornblk device's power attribute: what the fsync wrote is
 *     what the device keeps), lifts the injection and waits for the writer.
 *     A kernel that commits the 4k copied writes it back with the fsync: the
 *     device holds the block half new.  One that copies a block whole or not
 *     at all fails the write (EFAULT) and the block stays 'A'.
 *
 *   untornprobe nowait FILE OFFSET BLOCK
 *     Writes the block with 'A' (fsynced) and again with 'B', starts its
 *     writeback (sync_file_range), and at once rewrites its first 4k with
 *     pwritev2(RWF_NOWAIT).  With stable writes the block is under writeback:
 *     a non-blocking write must answer EAGAIN rather than wait for it.  A
 *     non-blocking write also answers EAGAIN when the file's mtime needs an
 *     update, so each try comes right after a plain write to the next block
 *     (the same clock tick, most of the time), up to 5 tries until one is
 *     taken (tries=).  Then
 *     the same write blocking, timed: it waits if the block was still under
 *     writeback (blocking_us), which shows the probe hit the window.
 *     Then three times: the block rewritten, its writeback started, and the
 *     same 4k write submitted through io_uring, whose first try does not
 *     block: a write it cannot do at once goes to a worker, so the
 *     submitting call must return at once (uring_submit_us, the longest of
 *     the three) and the write completes once the writeback is done
 *     (uring_done_us, the longest time to completion).
 *
 *   untornprobe writes FILE SIZE BS EVERY COUNT SEED
 *     COUNT buffered writes of BS bytes at random BS-aligned offsets below
 *     SIZE (the file must hold SIZE bytes), an fsync after every EVERY, as a
 *     database writes its pages; timed (untorn-cost.sh, a benchmark).
 *
 * Each prints one line (key=value ...) for the script to judge; exit 0 when
 * the probe ran, 1 when a step it needs failed (with errno and context).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FAIL_USERCOPY "/sys/kernel/debug/fail_usercopy/"
#define HEAD 4096

static int die(const char *what, const char *arg)
{
	fprintf(stderr, "untornprobe: %s %s: %s\n", what, arg, strerror(errno));
	return 1;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/*
 * whole ARG NAME MIN STEP: a whole number of at least MIN that is a multiple
 * of STEP, or exit with a message.
 */
static long long whole(const char *arg, const char *name, long long min, long long step)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno || *end || end == arg || v < min || v % step) {
		fprintf(stderr, "untornprobe: %s '%s' is not a whole number of at least %lld "
			"and a multiple of %lld\n", name, arg, min, step);
		exit(2);
	}
	return v;
}

/* number ARG NAME: 0 or a positive multiple of 4096 (offsets, sizes). */
static long long number(const char *arg, const char *name)
{
	return whole(arg, name, 0, HEAD);
}

static int fill(int fd, off_t off, size_t len, int c, int sync)
{
	char *buf = malloc(len);
	ssize_t n;

	if (!buf)
		return -1;
	memset(buf, c, len);
	n = pwrite(fd, buf, len, off);
	free(buf);
	if (n != (ssize_t)len)
		return -1;
	return sync ? fsync(fd) : 0;
}

struct writer {
	int fd;
	off_t off;
	size_t len;
	atomic_int done;
	ssize_t ret;
	int err;
	int64_t us;
	const char *failed;	/* a setup step that failed, or NULL */
};

static void *writer_run(void *p)
{
	struct writer *w = p;
	char *buf = malloc(w->len);
	struct iovec iov[2];
	int64_t t0;

	if (!buf) {
		w->failed = "malloc";
		atomic_store(&w->done, 1);
		return NULL;
	}
	memset(buf, 'B', w->len);
	iov[0] = (struct iovec){ buf, HEAD };
	iov[1] = (struct iovec){ buf + HEAD, w->len - HEAD };
	/* Before this, no copy of this thread is subject to the injection. */
	if (put("/proc/thread-self/make-it-fail", "1")) {
		w->failed = "/proc/thread-self/make-it-fail";
		w->err = errno;
		atomic_store(&w->done, 1);
		free(buf);
		return NULL;
	}
	t0 = now_us();
	w->ret = pwritev(w->fd, iov, 2, w->off);
	w->err = errno;
	w->us = now_us() - t0;
	atomic_store(&w->done, 1);
	free(buf);
	return NULL;
}

static int shortcopy(const char *file, off_t off, size_t len, const char *power)
{
	/* The first copy (the 4k iovec) passes, every later one fails. */
	static const char *const setup[][2] = {
		{ "verbose", "0" }, { "task-filter", "Y" }, { "times", "-1" },
		{ "interval", "1" }, { "space", "2" }, { "probability", "100" },
	};
	struct writer w = { .off = off, .len = len, .ret = -1 };
	char path[256];
	pthread_t t;
	int fd, waited = 0, fsync_err = 0, rc = 0;
	size_t i;

	fd = open(file, O_RDWR);
	if (fd < 0)
		return die("open", file);
	if (fill(fd, off, len, 'A', 1))
		return die("writing the old block of", file);
	w.fd = fd;
	for (i = 0; i < sizeof(setup) / sizeof(setup[0]); i++) {
		snprintf(path, sizeof(path), FAIL_USERCOPY "%s", setup[i][0]);
		if (put(path, setup[i][1]))
			return die("setting", path);
	}
	if (pthread_create(&t, NULL, writer_run, &w)) {
		put(FAIL_USERCOPY "probability", "0");
		return die("pthread_create", "writer");
	}
	while (!atomic_load(&w.done) && waited < 2000) {
		usleep(10000);
		waited += 10;
	}
	if (fsync(fd))
		fsync_err = errno;
	if (power && put(power, "0")) {
		rc = die("writing 0 to", power);
		power = NULL;
	}
	if (put(FAIL_USERCOPY "probability", "0"))
		rc = die("lifting the injection:", FAIL_USERCOPY "probability");
	pthread_join(t, NULL);
	if (w.failed) {
		errno = w.err;
		return die("writer:", w.failed);
	}
	printf("shortcopy: write=%zd errno=%s spun=%s us=%" PRId64 " fsync=%s cut=%s\n",
	       w.ret, w.ret < 0 ? strerrorname_np(w.err) : "0",
	       waited >= 2000 ? "yes" : "no", w.us,
	       fsync_err ? strerrorname_np(fsync_err) : "ok", power ? "yes" : "no");
	close(fd);
	return rc;
}

/*
 * Three io_uring writes of the block's first 4k, each while the block is
 * under writeback (after a plain write to the next block, for the mtime);
 * the longest submit and the longest time to completion, in microseconds.
 */
static int uring_nowait(int fd, const char *file, off_t off, size_t len,
			char *head, int64_t *submit_us, int64_t *done_us)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int64_t t0, t1;
	int ret, i;

	*submit_us = *done_us = 0;
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret < 0) {
		errno = -ret;
		return die("io_uring_queue_init for", file);
	}
	for (i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (fill(fd, off, len, 'B', 0) ||
		    sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE) ||
		    pwrite(fd, head, HEAD, off + len) != HEAD) {
			ret = die("rewriting the block of", file);
			goto out;
		}
		io_uring_prep_write(sqe, fd, head, HEAD, off);
		t0 = now_us();
		ret = io_uring_submit(&ring);
		t1 = now_us();
		if (ret == 1)
			ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0) {
			errno = -ret;
			ret = die("io_uring write to", file);
			goto out;
		}
		if (cqe->res != HEAD) {
			errno = cqe->res < 0 ? -cqe->res : EIO;
			ret = die("io_uring write (completion) to", file);
			goto out;
		}
		io_uring_cqe_seen(&ring, cqe);
		if (t1 - t0 > *submit_us)
			*submit_us = t1 - t0;
		if (now_us() - t0 > *done_us)
			*done_us = now_us() - t0;
	}
	ret = 0;
out:
	io_uring_queue_exit(&ring);
	return ret;
}

static int nowait(const char *file, off_t off, size_t len)
{
	char head[HEAD];
	struct iovec iov = { head, sizeof(head) };
	int64_t t0, us, blocking_us, uring_submit_us, uring_done_us;
	ssize_t ret;
	int fd, err, tries = 0;

	fd = open(file, O_RDWR);
	if (fd < 0)
		return die("open", file);
	if (fill(fd, off, len, 'A', 1) || fill(fd, off, len, 'B', 0))
		return die("writing the block of", file);
	if (sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE))
		return die("sync_file_range", file);
	memset(head, 'C', sizeof(head));
	do {
		if (pwrite(fd, head, sizeof(head), off + len) != (ssize_t)sizeof(head))
			return die("writing the next block of", file);
		t0 = now_us();
		ret = pwritev2(fd, &iov, 1, off, RWF_NOWAIT);
		err = errno;
		us = now_us() - t0;
	} while (ret < 0 && err == EAGAIN && ++tries < 5);
	t0 = now_us();
	if (pwrite(fd, head, sizeof(head), off) != (ssize_t)sizeof(head))
		return die("the blocking write of", file);
	blocking_us = now_us() - t0;
	if (uring_nowait(fd, file, off, len, head, &uring_submit_us, &uring_done_us))
		return 1;
	printf("nowait: write=%zd errno=%s us=%" PRId64 " blocking_us=%" PRId64 " tries=%d"
	       " uring_submit_us=%" PRId64 " uring_done_us=%" PRId64 "\n",
	       ret, ret < 0 ? strerrorname_np(err) : "0", us, blocking_us,
	       tries + (ret >= 0), uring_submit_us, uring_done_us);
	if (fsync(fd))
		return die("fsync", file);
	close(fd);
	return 0;
}

/* count ARG NAME: a whole number above 0. */
static long long count(const char *arg, const char *name)
{
	return whole(arg, name, 1, 1);
}

static int writes(const char *file, long long size, long long bs, long long every,
		  long long n, unsigned int seed)
{
	long long blocks = size / bs, i;
	char *buf = malloc(bs);
	int64_t t0, us;
	int fd;

	if (!buf)
		return die("malloc", "buffer");
	if (blocks < 1) {
		fprintf(stderr, "untornprobe: SIZE %lld holds no block of %lld\n", size, bs);
		free(buf);
		return 2;
	}
	fd = open(file, O_RDWR);
	if (fd < 0) {
		free(buf);
		return die("open", file);
	}
	srand(seed);
	t0 = now_us();
	for (i = 0; i < n; i++) {
		off_t off = (off_t)(((long long)rand() * RAND_MAX + rand()) % blocks) * bs;

		memset(buf, (int)(i & 0xff), bs);
		if (pwrite(fd, buf, bs, off) != bs || ((i + 1) % every == 0 && fsync(fd))) {
			free(buf);
			close(fd);
			return die("writing", file);
		}
	}
	if (fsync(fd)) {
		free(buf);
		close(fd);
		return die("fsync", file);
	}
	us = now_us() - t0;
	printf("writes: writes=%lld us=%" PRId64 " per_s=%.1f\n", n, us, n * 1e6 / (double)us);
	free(buf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "shortcopy")) {
		if (number(argv[4], "BLOCK") < 2 * HEAD) {
			fprintf(stderr, "untornprobe: BLOCK must be at least %d\n", 2 * HEAD);
			return 2;
		}
		return shortcopy(argv[2], number(argv[3], "OFFSET"),
				 number(argv[4], "BLOCK"), argv[5]);
	}
	if (argc == 5 && !strcmp(argv[1], "nowait") && number(argv[4], "BLOCK") > 0)
		return nowait(argv[2], number(argv[3], "OFFSET"),
			      number(argv[4], "BLOCK"));
	if (argc == 8 && !strcmp(argv[1], "writes"))
		return writes(argv[2], number(argv[3], "SIZE"), number(argv[4], "BS"),
			      count(argv[5], "EVERY"), count(argv[6], "COUNT"),
			      (unsigned int)count(argv[7], "SEED"));
	fprintf(stderr, "usage: untornprobe shortcopy FILE OFFSET BLOCK POWER\n"
			"       untornprobe nowait FILE OFFSET BLOCK\n"
			"       untornprobe writes FILE SIZE BS EVERY COUNT SEED\n");
	return 2;
}
