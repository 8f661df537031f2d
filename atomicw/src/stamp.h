/* SPDX-License-Identifier: MIT */
/*
 * Block stamps.  Every 512-byte sector of a block written by atomicw carries
 * a header (magic, checksum, run id, block number, generation, sector index)
 * and a filler derived from them, so that after a crash each sector tells
 * which write of which run it came from and whether it is intact.  The run
 * id is the journal's: a sector left by an earlier run on the same target
 * is not mistaken for this run's data.
 */
#ifndef AW_STAMP_H
#define AW_STAMP_H

#include <stddef.h>
#include <stdint.h>

#define AW_SECTOR 512u
#define AW_STAMP_MAGIC 0x32535741u /* "AWS2" */
/* A run id that matches any run: for verify without a journal. */
#define AW_RUN_ANY 0ull

enum aw_sector_state {
	AW_SEC_ZERO,  /* all zero: never written */
	AW_SEC_VALID, /* a stamp of this run, block and sector, checksum good */
	AW_SEC_FOREIGN, /* as VALID, but written by another run: what the
			 * target held before this run, like a zero sector */
	AW_SEC_BAD,   /* anything else */
};

enum aw_block_state {
	AW_BLK_ZERO,	/* nothing of this run: every sector zero or foreign */
	AW_BLK_INTACT,	/* every sector from the same write */
	AW_BLK_TORN,	/* sectors from different writes (or zero/foreign and written) */
	AW_BLK_CORRUPT, /* a sector is neither zero nor a valid stamp */
};

struct aw_block_class {
	enum aw_block_state state;
	uint64_t gen_min; /* lowest generation seen (0 for zero and foreign sectors) */
	uint64_t gen_max; /* highest generation seen */
	uint32_t bad_sectors;
	uint32_t foreign_sectors; /* valid stamps of another run (counted as zero) */
	uint32_t first_bad; /* index of the first bad sector, if any */
};

uint32_t aw_crc32c(uint32_t crc, const void *buf, size_t len);

/*
 * Fill buf (block_size bytes, a multiple of AW_SECTOR) with the stamp of
 * (run, block, gen).  run must not be AW_RUN_ANY.
 */
void aw_stamp_block(void *buf, uint32_t block_size, uint64_t run, uint64_t block,
		    uint64_t gen);

/*
 * Classify one sector expected at (block, sector) of run (AW_RUN_ANY: of
 * any run); *gen gets its generation (0 unless VALID).
 */
enum aw_sector_state aw_check_sector(const void *sec, uint64_t run, uint64_t block,
				     uint32_t sector, uint32_t block_size,
				     uint64_t *gen);

/* Classify a whole block of run read back from the media. */
struct aw_block_class aw_classify_block(const void *buf, uint32_t block_size,
					uint64_t run, uint64_t block);

/*
 * Count the unit-sized, unit-aligned pieces of a block that hold sectors of
 * more than one write (zero and foreign sectors count as one write of
 * their own: the content from before the run).  A
 * device whose power-fail unit is `unit` must never produce one.  Bad
 * sectors are left to aw_classify_block().  unit: a multiple of AW_SECTOR
 * that divides block_size.
 */
uint32_t aw_count_torn_units(const void *buf, uint32_t block_size, uint64_t run,
			     uint64_t block, uint32_t unit);

const char *aw_block_state_name(enum aw_block_state s);

#endif
