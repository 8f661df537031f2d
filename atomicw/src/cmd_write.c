// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "explain.h"
#include "journal.h"
#include "journal_place.h"
#include "ring.h"
#include "stamp.h"
#include "target.h"
#include "util.h"

#define FSYNC_TAG UINT64_MAX

struct writer {
	const struct aw_opts *o;
	struct aw_target t;
	struct aw_journal j;
	struct aw_ring ring;
	struct aw_rng rng;
	uint64_t nblocks, qd, gen, submitted, acked, fsyncs, since_fsync;
	uint64_t *slot_block, *slot_gen;
	unsigned char *busy; /* a block with a write in flight */
	unsigned char *bufs;
	unsigned int *free_slots, nfree;
	int err;	      /* first error (errno), 0 if none */
	uint64_t err_off;
};

static int more_to_submit(const struct writer *w, uint64_t deadline)
{
	if (w->err)
		return 0;
	if (w->o->seconds)
		return aw_now_ns() < deadline;
	return w->submitted < (w->o->count ? w->o->count : w->nblocks);
}

static int submit_one(struct writer *w)
{
	unsigned int slot = w->free_slots[--w->nfree];
	uint64_t b;
	void *buf = w->bufs + (size_t)slot * w->o->block_size;

	do
		b = aw_rng_below(&w->rng, w->nblocks);
	while (w->busy[b]);
	w->busy[b] = 1;
	w->slot_block[slot] = b;
	w->slot_gen[slot] = ++w->gen;
	aw_stamp_block(buf, (uint32_t)w->o->block_size, w->j.run_id, b, w->gen);
	if (aw_journal_add(&w->j, AW_REC_SUBMIT, b, w->gen))
		return -1;
	w->submitted++;
	return aw_ring_write(&w->ring, w->t.fd, buf, (uint32_t)w->o->block_size,
			     w->o->offset + b * w->o->block_size,
			     w->o->atomic ? RWF_ATOMIC : 0, slot);
}

/* Reap one completion; returns -1 only for failures of the tool itself. */
static int reap_one(struct writer *w)
{
	uint64_t tag, b;
	int res;

	if (aw_ring_reap(&w->ring, &tag, &res))
		return -1;
	if (tag == FSYNC_TAG) {
		if (res < 0) {
			if (!w->err)
				w->err = -res;
			fprintf(stderr, "atomicw: fsync %s: %s\n", w->t.path, strerror(-res));
			return 0;
		}
		w->fsyncs++;
		return aw_journal_add(&w->j, AW_REC_FSYNC, 0, 0) || aw_journal_sync(&w->j);
	}
	b = w->slot_block[tag];
	w->busy[b] = 0;
	w->free_slots[w->nfree++] = (unsigned int)tag;
	if (res != (int)w->o->block_size) {
		if (!w->err) {
			w->err = res < 0 ? -res : EIO;
			w->err_off = w->o->offset + b * w->o->block_size;
			if (res >= 0)
				fprintf(stderr, "atomicw: short write: %d of %" PRIu64 " bytes\n",
					res, w->o->block_size);
		}
		return 0;
	}
	w->acked++;
	w->since_fsync++;
	return aw_journal_add(&w->j, AW_REC_ACK, b, w->slot_gen[tag]);
}

static int drain(struct writer *w)
{
	while (w->ring.inflight)
		if (reap_one(w))
			return -1;
	return 0;
}

static int do_fsync(struct writer *w)
{
	if (drain(w) || aw_journal_flush(&w->j))
		return -1;
	if (w->err)
		return 0;
	if (aw_ring_fsync(&w->ring, w->t.fd, FSYNC_TAG) || aw_ring_submit(&w->ring))
		return -1;
	w->since_fsync = 0;
	return drain(w);
}

static int run(struct writer *w)
{
	const struct aw_opts *o = w->o;
	uint64_t t0 = aw_now_ns(), deadline = t0 + o->seconds * 1000000000ull;
	uint64_t next_report = t0 + 1000000000ull;

	while (more_to_submit(w, deadline) || w->ring.inflight) {
		while (w->nfree && more_to_submit(w, deadline))
			if (submit_one(w))
				return -1;
		if (aw_journal_flush(&w->j) || aw_ring_submit(&w->ring) || reap_one(w))
			return -1;
		if (o->fsync_every && w->since_fsync >= o->fsync_every && do_fsync(w))
			return -1;
		if (o->verbose && aw_now_ns() > next_report) {
			fprintf(stderr, "atomicw: %" PRIu64 " writes acknowledged, %" PRIu64
				" fsyncs\n", w->acked, w->fsyncs);
			next_report += 1000000000ull;
		}
	}
	if (drain(w))
		return -1;
	printf("write: %" PRIu64 " submitted, %" PRIu64 " acknowledged, %" PRIu64
	       " fsyncs, %" PRIu64 "-byte %s blocks over %" PRIu64 " blocks, %.2f s\n",
	       w->submitted, w->acked, w->fsyncs, o->block_size,
	       aw_write_kind(o->atomic, o->buffered), w->nblocks,
	       (double)(aw_now_ns() - t0) / 1e9);
	return 0;
}

/* The blocks that fit in size bytes (o->blocks, or all); 0 if none or too few. */
static uint64_t room(const struct aw_opts *o, uint64_t size)
{
	uint64_t n = o->blocks;

	if (!n && size > o->offset)
		n = (size - o->offset) / o->block_size;
	if (!n || o->offset > size || n > (size - o->offset) / o->block_size) {
		fprintf(stderr, "atomicw: %s (%" PRIu64 " bytes) has no room for %" PRIu64
			" blocks of %" PRIu64 " at offset %" PRIu64 "\n", o->path, size, n,
			o->block_size, o->offset);
		return 0;
	}
	return n;
}

/*
 * Everything that can refuse the run is checked before the target is
 * created or grown (--create); only the atomic write limits need the file
 * itself, and a refusal there, or a failure to set up io_uring or the
 * journal, takes back what was made.
 */
static int setup(struct writer *w)
{
	const struct aw_opts *o = w->o;
	struct aw_journal_hdr hdr = { .magic = AW_JOURNAL_MAGIC };
	struct timespec now;
	uint64_t size;
	char err[512];
	int ret = 1;

	if (aw_journal_check_place(o->path, o->journal, o->journal_same_dev, err, sizeof(err))) {
		fprintf(stderr, "atomicw: %s\n", err);
		return 1;
	}
	if (aw_target_size_ahead(o->path, o->create, &size) || !room(o, size))
		return 1;
	if (aw_target_open(&w->t, o->path, O_WRONLY | (o->buffered ? 0 : O_DIRECT), o->create))
		return 1;
	w->nblocks = room(o, w->t.size); /* again: the file may have changed since */
	if (!w->nblocks)
		goto undo;
	if (o->atomic && !aw_target_atomic_ok(&w->t, (uint32_t)o->block_size)) {
		aw_explain_write_error(&w->t, w->t.stx.attributes & aw_target_atomic_attr(&w->t) ?
				       EINVAL : EOPNOTSUPP, o->offset,
				       (uint32_t)o->block_size, 1);
		ret = 2;
		goto undo;
	}
	w->qd = o->qd < w->nblocks ? o->qd : w->nblocks;
	w->slot_block = calloc(w->qd, sizeof(uint64_t));
	w->slot_gen = calloc(w->qd, sizeof(uint64_t));
	w->free_slots = calloc(w->qd, sizeof(unsigned int));
	w->busy = calloc(w->nblocks, 1);
	w->bufs = aw_alloc_aligned(w->qd * o->block_size);
	if (!w->slot_block || !w->slot_gen || !w->free_slots || !w->busy || !w->bufs) {
		fprintf(stderr, "atomicw: out of memory for %" PRIu64 " blocks\n", w->nblocks);
		goto undo;
	}
	for (unsigned int i = 0; i < w->qd; i++)
		w->free_slots[w->nfree++] = i;
	/* Generations grow across runs: by default start at the wall clock in
	 * microseconds; --gen-base makes the bytes written reproducible (the
	 * run id in every stamp then follows from the seed and the base). */
	clock_gettime(CLOCK_REALTIME, &now);
	w->gen = o->gen_base ? o->gen_base :
		 (uint64_t)now.tv_sec * 1000000ull + (uint64_t)now.tv_nsec / 1000;
	aw_rng_seed(&w->rng, o->seed);
	hdr.block_size = (uint32_t)o->block_size;
	hdr.nblocks = w->nblocks;
	hdr.base = o->offset;
	hdr.atomic = (uint32_t)o->atomic;
	hdr.run_id = aw_new_run_id(&w->rng, w->gen, o->gen_base != 0);
	/* The ring first: a run that cannot start leaves an earlier journal
	 * as it was, not one whose END record says a run was complete. */
	if (aw_ring_init(&w->ring, (unsigned int)w->qd + 1))
		goto undo;
	if (aw_journal_create(&w->j, o->journal, &hdr)) {
		aw_ring_exit(&w->ring);
		goto undo;
	}
	return 0;
undo:
	aw_target_undo_create(&w->t);
	return ret;
}

int aw_cmd_write(const struct aw_opts *o)
{
	struct writer w = { .o = o, .t = { .fd = -1 } };
	int ret = setup(&w);

	if (!ret) {
		ret = run(&w) ? 1 : 0;
		aw_ring_exit(&w.ring);
		if (aw_journal_close(&w.j))
			ret = 1;
		if (!ret && w.err) {
			aw_explain_write_error(&w.t, w.err, w.err_off,
					       (uint32_t)o->block_size, o->atomic);
			printf("write: stopped by an error after %" PRIu64 " acknowledged writes\n",
			       w.acked);
			ret = (w.err == EINVAL || w.err == EOPNOTSUPP) ? 2 : 3;
		}
	}
	aw_target_close(&w.t);
	free(w.slot_block);
	free(w.slot_gen);
	free(w.free_slots);
	free(w.busy);
	free(w.bufs);
	return ret;
}
