// SPDX-License-Identifier: MIT
/* Stamps and block classification, including crafted torn and corrupt blocks. */
#include <stdlib.h>
#include <string.h>

#include "stamp.h"
#include "tap.h"

#define BS 16384u
#define NSEC (BS / AW_SECTOR)
#define RUN 0x1234abcdull
#define HDR 40 /* the stamp header: the rest of a sector is filler */

static unsigned char a[BS], b[BS], mix[BS];

static void test_crc(void)
{
	/* The standard CRC-32C check value. */
	CHECK(aw_crc32c(0, "123456789", 9) == 0xe3069283u);
}

static void test_intact(void)
{
	struct aw_block_class c;

	aw_stamp_block(a, BS, RUN, 7, 100);
	c = aw_classify_block(a, BS, RUN, 7);
	CHECK(c.state == AW_BLK_INTACT);
	CHECK(c.gen_min == 100 && c.gen_max == 100);
	/* The same stamp read back at another block number is not ours. */
	c = aw_classify_block(a, BS, RUN, 8);
	CHECK(c.state == AW_BLK_CORRUPT);
	CHECK(c.bad_sectors == NSEC);
}

static void test_zero(void)
{
	struct aw_block_class c;

	memset(mix, 0, BS);
	c = aw_classify_block(mix, BS, RUN, 3);
	CHECK(c.state == AW_BLK_ZERO);
	CHECK(c.gen_max == 0);
}

static void test_torn_two_writes(void)
{
	struct aw_block_class c;

	aw_stamp_block(a, BS, RUN, 5, 10);
	aw_stamp_block(b, BS, RUN, 5, 11);
	/* First 4k unit from the new write, the rest old: a torn write. */
	memcpy(mix, b, 4096);
	memcpy(mix + 4096, a + 4096, BS - 4096);
	c = aw_classify_block(mix, BS, RUN, 5);
	CHECK(c.state == AW_BLK_TORN);
	CHECK(c.gen_min == 10 && c.gen_max == 11);
	CHECK(c.bad_sectors == 0);
}

static void test_torn_over_zero(void)
{
	struct aw_block_class c;

	aw_stamp_block(b, BS, RUN, 9, 42);
	memset(mix, 0, BS);
	memcpy(mix + 8192, b + 8192, 4096);
	c = aw_classify_block(mix, BS, RUN, 9);
	CHECK(c.state == AW_BLK_TORN);
	CHECK(c.gen_min == 0 && c.gen_max == 42);
}

static void test_corrupt(void)
{
	struct aw_block_class c;

	aw_stamp_block(a, BS, RUN, 1, 77);
	memcpy(mix, a, BS);
	mix[3 * AW_SECTOR + 300] ^= 0x01; /* one flipped bit in sector 3 */
	c = aw_classify_block(mix, BS, RUN, 1);
	CHECK(c.state == AW_BLK_CORRUPT);
	CHECK(c.bad_sectors == 1 && c.first_bad == 3);

	/* Sectors swapped within the block: right data, wrong place. */
	memcpy(mix, a, BS);
	memcpy(mix, a + AW_SECTOR, AW_SECTOR);
	c = aw_classify_block(mix, BS, RUN, 1);
	CHECK(c.state == AW_BLK_CORRUPT);

	/* A stamp written with another block size is not a match either. */
	aw_stamp_block(b, 8192, RUN, 1, 77);
	c = aw_classify_block(b, 8192, RUN, 1);
	CHECK(c.state == AW_BLK_INTACT);
	aw_stamp_block(b, BS, RUN, 1, 77);
	c = aw_classify_block(b, 8192, RUN, 1);
	CHECK(c.state == AW_BLK_CORRUPT);
}

static void test_generations_differ(void)
{
	/* Different generations of one block give different bytes everywhere. */
	aw_stamp_block(a, BS, RUN, 2, 1);
	aw_stamp_block(b, BS, RUN, 2, 2);
	for (unsigned int s = 0; s < NSEC; s++)
		CHECK(memcmp(a + s * AW_SECTOR + HDR, b + s * AW_SECTOR + HDR, AW_SECTOR - HDR));
}

static void test_runs(void)
{
	struct aw_block_class c;

	/* A block an earlier run left on the target: nothing of this run, even
	 * with the generation this run wrote there (a reused --gen-base). */
	aw_stamp_block(a, BS, RUN + 1, 4, 50);
	c = aw_classify_block(a, BS, RUN, 4);
	CHECK(c.state == AW_BLK_ZERO && c.gen_max == 0);
	CHECK(c.bad_sectors == 0 && c.foreign_sectors == NSEC);
	/* Without a journal (any run) it is an intact block of generation 50. */
	c = aw_classify_block(a, BS, AW_RUN_ANY, 4);
	CHECK(c.state == AW_BLK_INTACT && c.gen_max == 50);
	/* Half this run, half the earlier one, same generation: torn. */
	aw_stamp_block(b, BS, RUN, 4, 50);
	memcpy(mix, b, BS / 2);
	memcpy(mix + BS / 2, a + BS / 2, BS / 2);
	c = aw_classify_block(mix, BS, RUN, 4);
	CHECK(c.state == AW_BLK_TORN && c.gen_min == 0 && c.gen_max == 50);
	CHECK(c.foreign_sectors == NSEC / 2);
	CHECK(aw_count_torn_units(mix, BS, RUN, 4, BS) == 1);
	CHECK(aw_count_torn_units(mix, BS, RUN, 4, BS / 2) == 0);
	CHECK(aw_count_torn_units(mix, BS, AW_RUN_ANY, 4, BS) == 0);
	/* The run id is in every sector's bytes, not only its header. */
	for (unsigned int s = 0; s < NSEC; s++)
		CHECK(memcmp(a + s * AW_SECTOR + HDR, b + s * AW_SECTOR + HDR, AW_SECTOR - HDR));
}

static void test_torn_units(void)
{
	aw_stamp_block(a, BS, RUN, 5, 10);
	aw_stamp_block(b, BS, RUN, 5, 11);
	/* Torn at the 8k boundary: whole 8k and 4k pieces, one torn 16k piece. */
	memcpy(mix, b, 8192);
	memcpy(mix + 8192, a + 8192, BS - 8192);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, 4096) == 0);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, 8192) == 0);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, BS) == 1);
	/* Torn inside a sector run that is not unit aligned (sector 3). */
	memcpy(mix, b, 3 * AW_SECTOR);
	memcpy(mix + 3 * AW_SECTOR, a + 3 * AW_SECTOR, BS - 3 * AW_SECTOR);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, 4096) == 1);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, AW_SECTOR) == 0);
	/* New data over never-written sectors tears too. */
	memset(mix, 0, BS);
	memcpy(mix + 4096, b + 4096, 2048);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, 4096) == 1);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, 2048) == 0);
	/* An intact block has no torn unit at any size; bad sectors are skipped. */
	CHECK(aw_count_torn_units(a, BS, RUN, 5, AW_SECTOR) == 0);
	memcpy(mix, a, BS);
	memset(mix + 100, 0xff, 8);
	CHECK(aw_count_torn_units(mix, BS, RUN, 5, 4096) == 0);
}

int main(void)
{
	test_crc();
	test_intact();
	test_zero();
	test_torn_two_writes();
	test_torn_over_zero();
	test_corrupt();
	test_generations_differ();
	test_runs();
	test_torn_units();
	return tap_done("test_stamp");
}
