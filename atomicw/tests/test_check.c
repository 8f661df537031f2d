// SPDX-License-Identifier: MIT
/* The journal's notion of durable, and judging blocks against it. */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "journal.h"
#include "tap.h"

static struct aw_journal_state st;
static struct aw_pending pend;

static void reset(uint64_t nblocks)
{
	free(st.blocks);
	free(pend.v);
	memset(&st, 0, sizeof(st));
	memset(&pend, 0, sizeof(pend));
	st.hdr.nblocks = nblocks;
	st.hdr.block_size = 4096;
	st.blocks = calloc(nblocks, sizeof(*st.blocks));
}

static int rec(enum aw_rec_type t, uint64_t b, uint64_t g)
{
	struct aw_rec r = { .block = b, .gen = g, .type = t };

	return aw_journal_apply(&st, &pend, &r);
}

static void test_durability(void)
{
	reset(4);
	CHECK(rec(AW_REC_SUBMIT, 1, 10) == 0);
	CHECK(rec(AW_REC_ACK, 1, 10) == 0);
	CHECK(st.blocks[1].durable == 0); /* acked but not fsynced */
	CHECK(rec(AW_REC_FSYNC, 0, 0) == 0);
	CHECK(st.blocks[1].durable == 10);
	CHECK(rec(AW_REC_SUBMIT, 1, 20) == 0);
	CHECK(rec(AW_REC_ACK, 1, 20) == 0);
	CHECK(rec(AW_REC_SUBMIT, 1, 30) == 0); /* in flight at the crash */
	CHECK(st.blocks[1].durable == 10 && st.blocks[1].acked == 20 &&
	      st.blocks[1].submitted == 30);
	/* Malformed records are refused. */
	CHECK(rec(AW_REC_ACK, 2, 5) == -1);   /* ack without submit */
	CHECK(rec(AW_REC_SUBMIT, 9, 5) == -1); /* block out of range */
	CHECK(rec(7, 1, 5) == -1);
}

static void test_many_pending(void)
{
	reset(1000);
	for (uint64_t b = 0; b < 1000; b++) {
		CHECK(rec(AW_REC_SUBMIT, b, b + 1) == 0);
		CHECK(rec(AW_REC_ACK, b, b + 1) == 0);
	}
	CHECK(rec(AW_REC_FSYNC, 0, 0) == 0);
	for (uint64_t b = 0; b < 1000; b++)
		CHECK(st.blocks[b].durable == b + 1);
}

static struct aw_block_class blk(enum aw_block_state s, uint64_t lo, uint64_t hi)
{
	struct aw_block_class c = { .state = s, .gen_min = lo, .gen_max = hi };

	return c;
}

static void test_judge(void)
{
	struct aw_expect e = { .durable = 10, .acked = 20, .submitted = 30 };
	struct aw_expect never = { 0 };
	struct aw_block_class c;
	int lost;

	c = blk(AW_BLK_INTACT, 30, 30);
	CHECK(aw_judge(&c, &e, &lost) == AW_V_INTACT_NEW && !lost);
	c = blk(AW_BLK_INTACT, 20, 20);
	CHECK(aw_judge(&c, &e, &lost) == AW_V_INTACT_OLD && !lost);
	c = blk(AW_BLK_INTACT, 10, 10);
	CHECK(aw_judge(&c, &e, &lost) == AW_V_INTACT_OLD && !lost);
	c = blk(AW_BLK_INTACT, 5, 5); /* older than the fsynced write */
	CHECK(aw_judge(&c, &e, &lost) == AW_V_LOST && lost);
	c = blk(AW_BLK_ZERO, 0, 0);
	CHECK(aw_judge(&c, &e, &lost) == AW_V_LOST && lost);
	CHECK(aw_judge(&c, &never, &lost) == AW_V_UNWRITTEN && !lost);
	c = blk(AW_BLK_TORN, 10, 30); /* torn over durable data */
	CHECK(aw_judge(&c, &e, &lost) == AW_V_TORN && !lost);
	c = blk(AW_BLK_TORN, 0, 30); /* part of the durable write gone */
	CHECK(aw_judge(&c, &e, &lost) == AW_V_TORN && lost);
	c = blk(AW_BLK_INTACT, 99, 99); /* newer than anything submitted */
	CHECK(aw_judge(&c, &e, &lost) == AW_V_CORRUPT);
	c = blk(AW_BLK_CORRUPT, 0, 0);
	CHECK(aw_judge(&c, &e, &lost) == AW_V_CORRUPT && lost);

	/* Without a journal only the stamps count. */
	c = blk(AW_BLK_INTACT, 99, 99);
	CHECK(aw_judge(&c, NULL, &lost) == AW_V_INTACT_NEW && !lost);
	c = blk(AW_BLK_TORN, 0, 30);
	CHECK(aw_judge(&c, NULL, &lost) == AW_V_TORN && !lost);
	c = blk(AW_BLK_ZERO, 0, 0);
	CHECK(aw_judge(&c, NULL, &lost) == AW_V_UNWRITTEN);
	c = blk(AW_BLK_CORRUPT, 0, 0);
	CHECK(aw_judge(&c, NULL, &lost) == AW_V_CORRUPT);
}

static void test_journal_file(void)
{
	char path[] = "/tmp/aw-journal-XXXXXX";
	int fd = mkstemp(path);
	struct aw_journal j;
	struct aw_journal_hdr h = { .magic = AW_JOURNAL_MAGIC, .block_size = 4096,
				    .nblocks = 8 };
	struct aw_journal_state ls;

	CHECK(fd >= 0);
	close(fd);
	CHECK(aw_journal_create(&j, path, &h) == 0);
	CHECK(aw_journal_add(&j, AW_REC_SUBMIT, 3, 5) == 0);
	CHECK(aw_journal_add(&j, AW_REC_ACK, 3, 5) == 0);
	CHECK(aw_journal_add(&j, AW_REC_FSYNC, 0, 0) == 0);
	CHECK(aw_journal_close(&j) == 0);
	CHECK(aw_journal_load(path, 1ull << 40, &ls) == 0);
	CHECK(ls.hdr.nblocks == 8 && ls.records == 3 && ls.fsyncs == 1);
	CHECK(ls.blocks[3].durable == 5);
	aw_journal_state_free(&ls);
	/* A file that is not a journal is refused. */
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(write(fd, "garbage garbage garbage garbage!", 32) == 32);
	close(fd);
	CHECK(aw_journal_load(path, 1ull << 40, &ls) == -1);
	unlink(path);
}

int main(void)
{
	test_durability();
	test_many_pending();
	test_judge();
	test_journal_file();
	reset(1);
	free(st.blocks);
	free(pend.v);
	return tap_done("test_check");
}
