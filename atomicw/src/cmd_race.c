// SPDX-License-Identifier: MIT
/*
 * race: the page-cache writeback race of buffered database writes.  Each
 * round picks a block of the file (--block-size, e.g. the 16k fs block),
 * writes its first half with a new stamp, starts writeback of the block
 * (sync_file_range), writes the second half at once and again every
 * 100 us for --race-us, then starts writeback again.  On a
 * device that reads write data by DMA after submission and without stable
 * writes, the second write() can change pages while the first writeback is
 * still being captured: the device receives a block whose second half is
 * part old, part new.  Halves are journalled as blocks of half the size,
 * so `atomicw verify PATH --journal J` counts torn halves after a cut.
 * The time of the first write() after each writeback start is reported:
 * with stable writes it waits for that writeback, without it does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "journal.h"
#include "journal_place.h"
#include "stamp.h"
#include "stats.h"
#include "util.h"

struct racer {
	const struct aw_opts *o;
	int fd;
	uint64_t nblocks, half, gen, rounds;
	struct aw_journal j;
	struct aw_rng rng;
	struct aw_samples wait_ns;	/* first write() after writeback starts */
	void *buf;
};

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "atomicw race: %s %s: %s\n", what, path, strerror(errno));
	return -1;
}

/* Write half h of block b with a new generation and journal it. */
static int write_half(struct racer *r, uint64_t b, unsigned int h)
{
	uint64_t id = b * 2 + h, off = r->o->offset + id * r->half;
	ssize_t n;

	r->gen++;
	aw_stamp_block(r->buf, (uint32_t)r->half, r->j.run_id, id, r->gen);
	if (aw_journal_add(&r->j, AW_REC_SUBMIT, id, r->gen))
		return -1;
	n = pwrite(r->fd, r->buf, r->half, (off_t)off);
	if (n != (ssize_t)r->half) {
		if (n >= 0)
			errno = EIO;
		return fail("pwrite to", r->o->path);
	}
	return aw_journal_add(&r->j, AW_REC_ACK, id, r->gen);
}

static int start_writeback(struct racer *r, uint64_t b)
{
	uint64_t off = r->o->offset + b * r->o->block_size;

	if (sync_file_range(r->fd, (off_t)off, (off_t)r->o->block_size,
			    SYNC_FILE_RANGE_WRITE))
		return fail("sync_file_range on", r->o->path);
	return 0;
}

static int durable(struct racer *r)
{
	if (fsync(r->fd))
		return fail("fsync of", r->o->path);
	return aw_journal_add(&r->j, AW_REC_FSYNC, 0, 0) || aw_journal_sync(&r->j);
}

static void pause_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000),
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static int run(struct racer *r)
{
	const struct aw_opts *o = r->o;
	uint64_t t0 = aw_now_ns(), t1, b;

	/* Every half stamped once and durable: the old data of the race. */
	for (b = 0; b < r->nblocks; b++)
		if (write_half(r, b, 0) || write_half(r, b, 1))
			return -1;
	if (durable(r))
		return -1;
	for (;;) {
		if (o->seconds ? aw_now_ns() - t0 >= o->seconds * 1000000000ull :
				 r->rounds >= o->count)
			break;
		b = aw_rng_below(&r->rng, r->nblocks);
		if (write_half(r, b, 0) || start_writeback(r, b))
			return -1;
		t1 = aw_now_ns();
		if (write_half(r, b, 1) ||
		    aw_samples_add(&r->wait_ns, aw_now_ns() - t1))
			return -1;
		while (aw_now_ns() - t1 < o->race_us * 1000ull) {
			pause_us(100);
			if (write_half(r, b, 1))
				return -1;
		}
		if (start_writeback(r, b))
			return -1;
		r->rounds++;
		if (o->fsync_every && r->rounds % o->fsync_every == 0 && durable(r))
			return -1;
	}
	return aw_journal_flush(&r->j);
}

int aw_cmd_race(const struct aw_opts *o)
{
	struct racer r = { .o = o, .half = o->block_size / 2 };
	struct aw_journal_hdr hdr = { .magic = AW_JOURNAL_MAGIC };
	struct stat st;
	char err[512];
	int ret = 1;

	if (aw_journal_check_place(o->path, o->journal, o->journal_same_dev, err, sizeof(err))) {
		fprintf(stderr, "atomicw race: %s\n", err);
		return 1;
	}
	r.fd = open(o->path, O_RDWR);
	if (r.fd < 0) {
		fail("cannot open", o->path);
		return 1;
	}
	if (fstat(r.fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "atomicw race: %s is not a regular file (the race is in the page cache of a file)\n",
			o->path);
		goto out;
	}
	r.nblocks = o->blocks;
	if (!r.nblocks && (uint64_t)st.st_size > o->offset)
		r.nblocks = ((uint64_t)st.st_size - o->offset) / o->block_size;
	if (!r.nblocks || o->offset + r.nblocks * o->block_size > (uint64_t)st.st_size) {
		fprintf(stderr, "atomicw race: %s (%lld bytes) has no room for %" PRIu64
			" blocks of %" PRIu64 " at offset %" PRIu64 "\n", o->path,
			(long long)st.st_size, r.nblocks, o->block_size, o->offset);
		goto out;
	}
	r.buf = aw_alloc_aligned(r.half);
	if (!r.buf)
		goto out;
	aw_rng_seed(&r.rng, o->seed);
	r.gen = o->gen_base ? o->gen_base : (uint64_t)time(NULL) * 1000000ull;
	hdr.block_size = (uint32_t)r.half;
	hdr.nblocks = r.nblocks * 2;
	hdr.base = o->offset;
	hdr.run_id = aw_new_run_id(&r.rng, r.gen, o->gen_base != 0);
	if (aw_journal_create(&r.j, o->journal, &hdr))
		goto out;
	ret = run(&r) ? 1 : 0;
	if (aw_journal_close(&r.j))
		ret = 1;
	if (!ret) {
		printf("race: %" PRIu64 " rounds on %" PRIu64 " blocks of %" PRIu64
		       " (halves of %" PRIu64 "), second half rewritten for %" PRIu64 " us\n",
		       r.rounds, r.nblocks, o->block_size, r.half, o->race_us);
		printf("race: first write() after writeback start: p50 %" PRIu64
		       " us, p99 %" PRIu64 " us\n",
		       aw_samples_pct(&r.wait_ns, 50) / 1000,
		       aw_samples_pct(&r.wait_ns, 99) / 1000);
	}
out:
	aw_samples_free(&r.wait_ns);
	free(r.buf);
	close(r.fd);
	return ret;
}
