// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cmds.h"
#include "journal.h"
#include "stamp.h"
#include "target.h"
#include "util.h"

#define CHUNK (1u << 20)
#define SHOW_MAX 20

static void report_block(uint64_t b, enum aw_verdict v, const struct aw_block_class *c,
			 const struct aw_expect *e)
{
	printf("block %" PRIu64 ": %s", b, aw_verdict_name(v));
	if (c->state == AW_BLK_CORRUPT)
		printf(" (%u bad sectors, first %u)", c->bad_sectors, c->first_bad);
	else
		printf(" (gens %" PRIu64 "..%" PRIu64 ")", c->gen_min, c->gen_max);
	if (c->foreign_sectors)
		printf(" %u sectors written by another run", c->foreign_sectors);
	if (e)
		printf(" durable %" PRIu64 " acked %" PRIu64 " submitted %" PRIu64,
		       e->durable, e->acked, e->submitted);
	putchar('\n');
}

int aw_cmd_verify(const struct aw_opts *o)
{
	struct aw_journal_state js = { 0 };
	struct aw_target t;
	struct aw_tally tally = { 0 };
	uint64_t bs, nblocks, base, run, shown = 0, torn_units = 0;
	unsigned char *buf = NULL;
	int have_journal = o->journal != NULL, ret = 1;

	if (aw_target_open(&t, o->path, O_RDONLY | O_DIRECT, 0))
		return 1;
	/* The target's size first: the journal's blocks are checked against it
	 * before any memory is taken for them. */
	if (have_journal && aw_journal_load(o->journal, t.size, &js))
		goto out;
	bs = have_journal ? js.hdr.block_size : o->block_size;
	run = have_journal ? js.hdr.run_id : AW_RUN_ANY;
	base = have_journal ? js.hdr.base : o->offset;
	nblocks = have_journal ? js.hdr.nblocks : o->blocks;
	if (!nblocks && t.size > base)
		nblocks = (t.size - base) / bs;
	if (!nblocks || base > t.size || nblocks > (t.size - base) / bs) {
		fprintf(stderr, "atomicw: %s (%" PRIu64 " bytes) is smaller than %" PRIu64
			" blocks of %" PRIu64 " at %" PRIu64 "\n", o->path, t.size, nblocks, bs,
			base);
		goto out;
	}
	if (o->unit > bs) {
		fprintf(stderr, "atomicw: --unit %" PRIu64 " is larger than the block size %" PRIu64
			"\n", o->unit, bs);
		goto out;
	}
	buf = aw_alloc_aligned(CHUNK > bs ? CHUNK : bs);
	if (!buf)
		goto out;
	for (uint64_t b = 0; b < nblocks;) {
		uint64_t per = (CHUNK > bs ? CHUNK : bs) / bs, n = nblocks - b < per ? nblocks - b : per;
		ssize_t got = pread(t.fd, buf, n * bs, (off_t)(base + b * bs));

		if (got != (ssize_t)(n * bs)) {
			fprintf(stderr, "atomicw: reading %" PRIu64 " bytes at %" PRIu64 " of %s: %s\n",
				n * bs, base + b * bs, o->path,
				got < 0 ? strerror(errno) : "short read");
			goto out;
		}
		for (uint64_t i = 0; i < n; i++, b++) {
			struct aw_block_class c = aw_classify_block(buf + i * bs, (uint32_t)bs,
								    run, b);
			const struct aw_expect *e = have_journal ? &js.blocks[b] : NULL;
			int lost;
			enum aw_verdict v = aw_judge(&c, e, &lost);

			tally.n[v]++;
			tally.lost += (uint64_t)lost;
			if (o->unit && c.state == AW_BLK_TORN)
				torn_units += aw_count_torn_units(buf + i * bs, (uint32_t)bs,
								  run, b, (uint32_t)o->unit);
			if (v != AW_V_UNWRITTEN && v != AW_V_INTACT_NEW && v != AW_V_INTACT_OLD &&
			    (o->verbose || shown++ < SHOW_MAX))
				report_block(b, v, &c, e);
		}
	}
	printf("verify: %" PRIu64 " blocks of %" PRIu64 " bytes:", nblocks, bs);
	for (int v = 0; v < AW_V_NR; v++)
		printf(" %s=%" PRIu64, aw_verdict_name((enum aw_verdict)v), tally.n[v]);
	printf(" missing-durable=%" PRIu64, tally.lost);
	if (o->unit)
		printf(" torn-units=%" PRIu64 " (unit %" PRIu64 ")", torn_units, o->unit);
	if (have_journal)
		printf(" (journal: %" PRIu64 " records, %" PRIu64 " fsyncs)", js.records,
		       js.fsyncs);
	putchar('\n');
	ret = 0;
	if (tally.n[AW_V_TORN])
		ret |= 1;
	if (tally.n[AW_V_CORRUPT])
		ret |= 2;
	if (tally.lost)
		ret |= 4;
	if (ret)
		ret |= 16;
out:
	free(buf);
	aw_target_close(&t);
	aw_journal_state_free(&js);
	return ret;
}
