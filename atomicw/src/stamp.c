// SPDX-License-Identifier: MIT
#include "stamp.h"

#include <string.h>

struct aw_sector_hdr {
	uint32_t magic;
	uint32_t csum; /* crc32c of the sector with this field zero */
	uint64_t run;
	uint64_t block;
	uint64_t gen;
	uint32_t sector;
	uint32_t block_size;
};

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t aw_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t sector_csum(const unsigned char *sec)
{
	unsigned char tmp[AW_SECTOR];
	struct aw_sector_hdr h;

	memcpy(tmp, sec, AW_SECTOR);
	memcpy(&h, tmp, sizeof(h));
	h.csum = 0;
	memcpy(tmp, &h, sizeof(h));
	return aw_crc32c(0, tmp, AW_SECTOR);
}

static void stamp_sector(unsigned char *sec, uint32_t block_size, uint64_t run,
			 uint64_t block, uint64_t gen, uint32_t sector)
{
	struct aw_sector_hdr h = {
		.magic = AW_STAMP_MAGIC,
		.run = run,
		.block = block,
		.gen = gen,
		.sector = sector,
		.block_size = block_size,
	};
	uint64_t seed = block * 0x100000001b3ull ^ gen * 0xc2b2ae3d27d4eb4full ^ sector ^
			run * 0x9e3779b97f4a7c15ull;

	for (size_t off = sizeof(h); off < AW_SECTOR; off += 8) {
		uint64_t v = splitmix64(&seed);

		memcpy(sec + off, &v, AW_SECTOR - off < 8 ? AW_SECTOR - off : 8);
	}
	memcpy(sec, &h, sizeof(h));
	h.csum = sector_csum(sec);
	memcpy(sec, &h, sizeof(h));
}

void aw_stamp_block(void *buf, uint32_t block_size, uint64_t run, uint64_t block,
		    uint64_t gen)
{
	for (uint32_t s = 0; s < block_size / AW_SECTOR; s++)
		stamp_sector((unsigned char *)buf + (size_t)s * AW_SECTOR,
			     block_size, run, block, gen, s);
}

static int all_zero(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

enum aw_sector_state aw_check_sector(const void *sec, uint64_t run, uint64_t block,
				     uint32_t sector, uint32_t block_size,
				     uint64_t *gen)
{
	struct aw_sector_hdr h;

	*gen = 0;
	if (all_zero(sec, AW_SECTOR))
		return AW_SEC_ZERO;
	memcpy(&h, sec, sizeof(h));
	if (h.magic != AW_STAMP_MAGIC || h.block != block || h.sector != sector ||
	    h.block_size != block_size || h.gen == 0 || h.run == AW_RUN_ANY ||
	    h.csum != sector_csum(sec))
		return AW_SEC_BAD;
	if (run != AW_RUN_ANY && h.run != run)
		return AW_SEC_FOREIGN;
	*gen = h.gen;
	return AW_SEC_VALID;
}

struct aw_block_class aw_classify_block(const void *buf, uint32_t block_size,
					uint64_t run, uint64_t block)
{
	struct aw_block_class c = { .gen_min = UINT64_MAX };
	uint32_t nsec = block_size / AW_SECTOR, zero = 0;

	for (uint32_t s = 0; s < nsec; s++) {
		uint64_t gen;
		enum aw_sector_state st = aw_check_sector(
			(const unsigned char *)buf + (size_t)s * AW_SECTOR,
			run, block, s, block_size, &gen);

		if (st == AW_SEC_BAD) {
			if (!c.bad_sectors)
				c.first_bad = s;
			c.bad_sectors++;
			continue;
		}
		if (st != AW_SEC_VALID)
			zero++;
		c.foreign_sectors += st == AW_SEC_FOREIGN;
		if (gen < c.gen_min)
			c.gen_min = gen;
		if (gen > c.gen_max)
			c.gen_max = gen;
	}
	if (c.gen_min == UINT64_MAX)
		c.gen_min = 0;
	if (c.bad_sectors)
		c.state = AW_BLK_CORRUPT;
	else if (zero == nsec)
		c.state = AW_BLK_ZERO;
	else if (c.gen_min != c.gen_max)
		c.state = AW_BLK_TORN;
	else
		c.state = AW_BLK_INTACT;
	return c;
}

uint32_t aw_count_torn_units(const void *buf, uint32_t block_size, uint64_t run,
			     uint64_t block, uint32_t unit)
{
	uint32_t per = unit / AW_SECTOR, nsec = block_size / AW_SECTOR, torn = 0;

	for (uint32_t u = 0; u + per <= nsec; u += per) {
		uint64_t first = 0, gen;
		int seen = 0, mixed = 0;

		for (uint32_t s = u; s < u + per && !mixed; s++) {
			enum aw_sector_state st = aw_check_sector(
				(const unsigned char *)buf + (size_t)s * AW_SECTOR,
				run, block, s, block_size, &gen);

			if (st == AW_SEC_BAD)
				continue;
			if (!seen)
				first = gen;
			seen = 1;
			mixed = gen != first;
		}
		torn += (uint32_t)mixed;
	}
	return torn;
}

const char *aw_block_state_name(enum aw_block_state s)
{
	switch (s) {
	case AW_BLK_ZERO:
		return "zero";
	case AW_BLK_INTACT:
		return "intact";
	case AW_BLK_TORN:
		return "torn";
	case AW_BLK_CORRUPT:
		return "corrupt";
	}
	return "?";
}
